import type { ModelConfig } from "../../src/model";

/** Serialized size of one benchmark event (our canonical body, the peers' stored JSON). */
export const EVENT_BYTES = 500;
export const MODEL: ModelConfig = { provider: "openai", name: "bench", contextWindow: 128_000, maxOutputTokens: 8_192 };
export const POOL = 64;

/** Printable filler of exactly `length` characters; `salt` makes each one differ. */
export function filler(length: number, salt: number): string {
  const words = ["durable", "object", "event", "log", "hash", "chain", "append", "context", "agent", "turn"];
  let out = `${salt.toString(36)} `;
  for (let i = salt; out.length < length; i++) out += `${words[i % words.length]} `;
  return out.slice(0, length);
}

/** Text of the length that makes `make(text)` serialize to `target` characters. */
export function sized(target: number, salt: number, make: (text: string) => string): string {
  const overhead = make("").length;
  return filler(Math.max(1, target - overhead), salt);
}

export const hex64 = (n: number) => n.toString(16).padStart(64, "0");

/** What a block of code cost in SQL: statements run and rows SQLite read and wrote (`cursor.rowsRead`). */
export type RowCount = { statements: number; rowsRead: number; rowsWritten: number; bytesRead?: number };

/** Counting only while `on`: a bulk fill must not keep 100k cursors alive. */
export type Counter = { on: boolean; cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[]; bytes: number };

/** Bytes of one row as read: string lengths (UTF-16 units, ~bytes for our ASCII bodies), blob sizes, 8 per number. */
export function rowBytes(row: unknown): number {
  let n = 0;
  for (const v of Array.isArray(row) ? row : Object.values(row as object)) {
    if (typeof v === "string") n += v.length;
    else if (v instanceof ArrayBuffer) n += v.byteLength;
    else n += 8;
  }
  return n;
}

/**
 * Wraps `exec` on the object's `SqlStorage` (one shared instance per object), so every
 * reader, including code we do not own (constructor, runtime, store), is counted: statements,
 * rows SQLite read and wrote (`cursor.rowsRead`), and the bytes of the rows handed to JS.
 */
export function installRowCounter(sql: SqlStorage): Counter {
  let on = false;
  const counter = {
    cursors: [],
    bytes: 0,
    // The wrapper is on `sql` only while counting: a wrapped `exec` costs ~0.6 µs a statement,
    // which the measures that do not count rows (the commit path against its peer) must not pay.
    get on() {
      return on;
    },
    set on(value: boolean) {
      on = value;
      sql.exec = value ? counted : exec;
    },
  } as Counter;
  const exec = sql.exec;
  const counted = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    const cursor = exec.call(this, query, ...bindings);
    if (counter.on) {
      counter.cursors.push(cursor);
      // Count each row once, whichever way it is taken (toArray may call next inside).
      let inside = false;
      const c = cursor as unknown as Record<string, (...a: unknown[]) => unknown>;
      for (const m of ["next", "toArray", "one"] as const) {
        const orig = c[m]!.bind(cursor);
        c[m] = (...a: unknown[]) => {
          if (inside) return orig(...a);
          inside = true;
          try {
            const out = orig(...a);
            if (counter.on) {
              if (m === "next") {
                const r = out as IteratorResult<unknown>;
                if (!r.done) counter.bytes += rowBytes(r.value);
              } else if (m === "toArray") for (const row of out as unknown[]) counter.bytes += rowBytes(row);
              else counter.bytes += rowBytes(out);
            }
            return out;
          } finally {
            inside = false;
          }
        };
      }
    }
    return cursor;
  } as SqlStorage["exec"];
  counter.on = true;
  return counter;
}

/** Totals since the last take; counting goes on only if `keepOn`. */
export function takeCount(c: Counter, keepOn: boolean): RowCount {
  const out = { statements: c.cursors.length, rowsRead: 0, rowsWritten: 0, bytesRead: c.bytes };
  for (const cursor of c.cursors) {
    out.rowsRead += cursor.rowsRead;
    out.rowsWritten += cursor.rowsWritten;
  }
  c.cursors = [];
  c.bytes = 0;
  c.on = keepOn;
  return out;
}

// ------------------------------------------------------------------------------------------
// (a) our EventStore against a raw INSERT of the same bytes
