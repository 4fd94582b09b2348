/**
 * Canonical JSON (docs/API.md §3): `JSON.stringify` with every object's keys sorted
 * in JavaScript's default string order, no whitespace, `null` kept, `undefined`
 * fields omitted. Arrays keep their order.
 */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    // JSON.stringify(undefined) is undefined; inside arrays it must read as null, like JSON.stringify does.
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (i > 0) out += ",";
    out += `${JSON.stringify(k)}:${canonical(obj[k])}`;
  }
  return `${out}}`;
}

/** Below this, serializing again is cheaper than remembering. */
const REMEMBER_CHARS = 64 * 1024;
const remembered = new WeakMap<object, string>();

/**
 * `canonical(value)`, remembered per object when it is large, so that one large tool result is
 * serialized once on its way to the log (measured and archived by the runtime, then moved to the
 * blob store by the event store), not once per step (docs/design.md §6: a 10 MiB result is not copied
 * again and again). Only for values that are never changed after they are made, such as a
 * tool's response.
 */
export function canonicalOnce(value: unknown): string {
  if (value === null || typeof value !== "object") return canonical(value);
  const hit = remembered.get(value);
  if (hit !== undefined) return hit;
  const text = canonical(value);
  if (text.length >= REMEMBER_CHARS) remembered.set(value, text);
  return text;
}
