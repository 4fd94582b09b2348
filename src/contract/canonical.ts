/**
 * Canonical JSON (docs/API.md §3): `JSON.stringify` with every object's keys sorted
 * in JavaScript's default string order, no whitespace, `null` kept, `undefined`
 * fields omitted. Arrays keep their order.
 *
 * Written for an append's cost (docs/design.md#3-storage): one string built by appending, keys
 * sorted only when out of order (and a recent order reused), quoted keys remembered.
 */
export function canonical(value: unknown): string {
  // A string with nothing to escape is quoted as it is (JSON.stringify copies it, at ~2 ns a char).
  if (typeof value === "string") return MUST_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  // As JSON.stringify writes them, without a call into it: a finite number as String() does, else null.
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    // JSON.stringify(undefined) is undefined; inside arrays it must read as null, like JSON.stringify does.
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += canonical(value[i]);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      keys = sortedOrder(keys);
      break;
    }
  }
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = obj[k];
    if (v === undefined) continue;
    out += quotedKey(k)[out.length > 1 ? 1 : 0];
    out += canonical(v);
  }
  return `${out}}`;
}

/**
 * Key orders sorted lately, by the order the keys came in: objects built the same way (an event
 * from its draft and its seq, session and time) have the same keys in the same order, and reuse
 * the sorted order instead of sorting again. A few kept, the oldest dropped.
 */
const ORDERS: { keys: string[]; sorted: string[] }[] = [];
const ORDERS_KEPT = 16;

function sortedOrder(keys: string[]): string[] {
  next: for (const o of ORDERS) {
    if (o.keys.length !== keys.length) continue;
    for (let i = 0; i < keys.length; i++) if (o.keys[i] !== keys[i]) continue next;
    return o.sorted;
  }
  const sorted = keys.slice().sort();
  if (ORDERS.length >= ORDERS_KEPT) ORDERS.shift();
  ORDERS.push({ keys, sorted });
  return sorted;
}

/**
 * What JSON.stringify escapes: a quote, a backslash, a control character, a lone surrogate (any
 * surrogate here: a pair is left to JSON.stringify, which keeps it).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const MUST_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(key) + ":"` for a first key and with a comma before it for the others, for the
 * keys seen most, kept (bounded: keys can come from data).
 */
const QUOTED = new Map<string, readonly [string, string]>();
const QUOTED_MAX = 4096;

function quotedKey(k: string): readonly [string, string] {
  const hit = QUOTED.get(k);
  if (hit !== undefined) return hit;
  const first = `${JSON.stringify(k)}:`;
  const q = [first, `,${first}`] as const;
  if (QUOTED.size < QUOTED_MAX && k.length <= 64) QUOTED.set(k, q);
  return q;
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
