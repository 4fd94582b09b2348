/**
 * Today's code paths (as of 454ead7, before the "bounded in bytes" work), kept only so the bench
 * can measure them beside the current ones in the same workerd, on the same storage.
 */
import { canonical, type Event, sha256Hex, verifyRows } from "../../src/log";
import { BLOB_CHUNK_BYTES } from "../../src/log/blobs";
import { utf8BoundaryBefore } from "../../src/tools/builtin/text";

type Sql = SqlStorage;
const encoder = new TextEncoder();

/** The context read before the model view: every visible row's raw body. */
export function legacyContextEvents(sql: Sql, after: number): Event[] {
  return sql
    .exec<{ seq: number; body: string; digest: string }>(
      "SELECT seq, body, digest FROM events WHERE seq > ? AND (visibility = 'visible' OR kind = 'modelRequest') ORDER BY seq",
      after,
    )
    .toArray()
    .map((r) => ({ ...(JSON.parse(r.body) as Event), digest: r.digest }));
}

function legacyRead(sql: Sql, sha256: string, offset = 0, limit?: number): Uint8Array {
  const meta = sql.exec<{ bytes: number }>("SELECT bytes FROM blobs WHERE sha256 = ?", sha256).one();
  const start = Math.min(Math.max(0, offset), meta.bytes);
  const end = limit === undefined ? meta.bytes : Math.min(meta.bytes, start + limit);
  const out = new Uint8Array(end - start);
  if (end <= start) return out;
  const chunks = sql
    .exec<{ idx: number; data: ArrayBuffer }>(
      "SELECT idx, data FROM blob_chunks WHERE sha256 = ? AND idx BETWEEN ? AND ? ORDER BY idx",
      sha256,
      Math.floor(start / BLOB_CHUNK_BYTES),
      Math.floor((end - 1) / BLOB_CHUNK_BYTES),
    )
    .toArray();
  for (const c of chunks) {
    const chunkStart = c.idx * BLOB_CHUNK_BYTES;
    const data = new Uint8Array(c.data);
    const from = Math.max(start, chunkStart) - chunkStart;
    const to = Math.min(end, chunkStart + data.byteLength) - chunkStart;
    if (to > from) out.set(data.subarray(from, to), chunkStart + from - start);
  }
  return out;
}

function legacyCheck(sql: Sql, sha256: string, bytes: number): boolean {
  const all = legacyRead(sql, sha256);
  return all.byteLength === bytes && sha256Hex(all) === sha256;
}

/** Today's read_archive `read` page: a whole-blob read and hash, then the page's chunks. */
export function legacyArchivePage(sql: Sql, sha256: string, offset: number, limit: number): Uint8Array {
  const meta = sql.exec<{ bytes: number }>("SELECT bytes FROM blobs WHERE sha256 = ?", sha256).one();
  if (!legacyCheck(sql, sha256, meta.bytes)) throw new Error("corrupt");
  return legacyRead(sql, sha256, offset, limit + 8);
}

/** Today's BlobStore.put: the whole value encoded, stored, then read back whole and hashed. */
export function legacyPut(sql: Sql, data: string, mediaType: string) {
  const bytes = encoder.encode(data);
  const sha256 = sha256Hex(bytes);
  const existing = sql.exec<{ bytes: number }>("SELECT bytes FROM blobs WHERE sha256 = ?", sha256).toArray()[0];
  if (existing && legacyCheck(sql, sha256, existing.bytes)) return { sha256, bytes: bytes.byteLength, mediaType };
  const chunks = Math.max(1, Math.ceil(bytes.byteLength / BLOB_CHUNK_BYTES));
  sql.exec("DELETE FROM blob_chunks WHERE sha256 = ?", sha256);
  for (let i = 0; i < chunks; i++)
    sql.exec(
      "INSERT INTO blob_chunks (sha256, idx, data) VALUES (?, ?, ?)",
      sha256,
      i,
      bytes.subarray(i * BLOB_CHUNK_BYTES, (i + 1) * BLOB_CHUNK_BYTES),
    );
  sql.exec(
    "INSERT OR REPLACE INTO blobs (sha256, bytes, media_type, chunks) VALUES (?, ?, ?, ?)",
    sha256,
    bytes.byteLength,
    mediaType,
    chunks,
  );
  if (!legacyCheck(sql, sha256, bytes.byteLength)) throw new Error("read-back");
  return { sha256, bytes: bytes.byteLength, mediaType };
}

/** Today's readCapped + decode in http_fetch: every chunk kept, joined into one copy, then decoded. */
export async function legacyReadBody(response: Response, cap: number): Promise<string> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const keep = Math.min(value.byteLength, cap + 4 - size);
    parts.push(keep === value.byteLength ? value : value.subarray(0, keep));
    size += keep;
    if (size > cap) {
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(truncated ? all.subarray(0, utf8BoundaryBefore(all, cap)) : all);
}

/** Today's append of an event over 512 KiB: serialized whole, cloned, its payload serialized and put again. */
export function legacyAppendBody(sql: Sql, event: Omit<Event, "digest">): string {
  let body = canonical(event);
  if (body.length > 512 * 1024) {
    const e = structuredClone(event);
    const c = e.content;
    if (c?.type === "functionResponse") {
      const text = typeof c.response === "string" ? c.response : canonical(c.response);
      const meta = legacyPut(sql, text, "application/json");
      c.response = { $blob: meta };
    }
    body = canonical(e);
  }
  return body;
}

/** Today's /verify: the whole log in one synchronous pass. */
export function legacyVerify(rows: Iterable<{ seq: number; body: string; digest: string }>, sessionId: string) {
  return verifyRows(rows, sessionId);
}

/** Today's pumpSocket: every page of the backlog sent in one synchronous call. */
export function legacyPump(
  ws: { send(f: string): void },
  read: (after: number, limit: number) => { seq: number; json: string }[],
  cursor: number,
): number {
  for (;;) {
    const page = read(cursor, 256);
    for (const row of page) {
      ws.send(`{"type":"event","event":${row.json}}`);
      cursor = row.seq;
    }
    if (page.length < 256) return cursor;
  }
}
