/**
 * Canonical JSON (CONTRACT §3): `JSON.stringify` with every object's keys sorted
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
