import { createHash } from "node:crypto";
import type { SqlLike } from "../storage/sql";

/** Chunk size: blob rows stay well under the 2 MB SQLite row limit. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

export type BlobMeta = {
  sha256: string;
  bytes: number;
  mediaType: string;
  chunks: number;
  /** When the stored bytes were last read back and found to match size and sha256 (null: never). */
  verifiedAt: string | null;
};

const encoder = new TextEncoder();

/**
 * The UTF-8 bytes of a text in chunks of exactly `size` bytes (the last may be shorter), encoded
 * into one reused buffer: a 10 MiB text is never encoded whole. Each chunk is valid only until the
 * next is taken. The bytes are those of `TextEncoder.encode(text)`.
 */
export function* utf8Chunks(text: string, size: number): Generator<Uint8Array> {
  const buf = new Uint8Array(size);
  const one = new Uint8Array(4);
  let filled = 0;
  let pos = 0;
  while (pos < text.length) {
    // Each UTF-16 unit is at least one byte, so this slice is enough to fill the buffer.
    let end = Math.min(text.length, pos + (size - filled));
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - pos > 1 && last >= 0xd800 && last <= 0xdbff) end--; // keep pairs whole
    const { read, written } = encoder.encodeInto(text.substring(pos, end), buf.subarray(filled));
    pos += read;
    filled += written;
    if (read === 0) {
      // The next character does not fit in what is left: split its bytes over this chunk and the next.
      const units = (text.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
      const n = encoder.encodeInto(text.substring(pos, pos + units), one).written;
      pos += units;
      for (let k = 0; k < n; ) {
        const take = Math.min(n - k, size - filled);
        buf.set(one.subarray(k, k + take), filled);
        filled += take;
        k += take;
        if (filled === size) {
          yield buf;
          filled = 0;
        }
      }
      continue;
    }
    if (filled === size) {
      yield buf;
      filled = 0;
    }
  }
  if (filled > 0 || text.length === 0) yield buf.subarray(0, filled);
}

function* byteChunks(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  if (bytes.byteLength === 0) yield bytes;
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

/**
 * Content-addressed bytes inside one session's SQLite. `put` is synchronous so it
 * can share a transaction with the event that references it; it reads the stored
 * bytes back and checks size and sha256 before returning (archive first, placeholder second),
 * and records that check, so pages read later need not hash the whole blob again.
 */
export class BlobStore {
  constructor(private readonly sql: SqlLike) {}

  put(data: string | Uint8Array, mediaType = "text/plain; charset=utf-8"): BlobMeta {
    // Streamed a chunk at a time, twice (hash, then store): never a whole encoded copy of the value.
    const chunksOf = () =>
      typeof data === "string" ? utf8Chunks(data, BLOB_CHUNK_BYTES) : byteChunks(data, BLOB_CHUNK_BYTES);
    const hash = createHash("sha256");
    let total = 0;
    for (const chunk of chunksOf()) {
      hash.update(chunk);
      total += chunk.byteLength;
    }
    const sha256 = hash.digest("hex");
    const existing = this.meta(sha256);
    // Content-addressed: a blob already stored and verified is the same bytes.
    if (existing?.verifiedAt && existing.bytes === total) return existing;
    if (existing && this.check(existing)) return this.#markVerified(existing);
    this.sql.exec("DELETE FROM blob_chunks WHERE sha256 = ?", sha256);
    let chunks = 0;
    for (const part of chunksOf())
      this.sql.exec("INSERT INTO blob_chunks (sha256, idx, data) VALUES (?, ?, ?)", sha256, chunks++, part);
    this.sql.exec(
      "INSERT OR REPLACE INTO blobs (sha256, bytes, media_type, chunks, verified_at) VALUES (?, ?, ?, ?, NULL)",
      sha256,
      total,
      mediaType,
      chunks,
    );
    const meta: BlobMeta = { sha256, bytes: total, mediaType, chunks, verifiedAt: null };
    if (!this.check(meta)) throw new Error(`blob ${sha256} failed its read-back check`);
    return this.#markVerified(meta);
  }

  #markVerified(meta: BlobMeta): BlobMeta {
    const verifiedAt = new Date().toISOString();
    this.sql.exec("UPDATE blobs SET verified_at = ? WHERE sha256 = ?", verifiedAt, meta.sha256);
    return { ...meta, verifiedAt };
  }

  /**
   * Checks a blob once: true when it was verified before (at `put`) and its stored size still
   * matches (counted in SQLite, no bytes read), or when a full check passes now, which is recorded.
   */
  verifiedOnce(meta: BlobMeta): boolean {
    if (meta.verifiedAt) return this.storedBytes(meta.sha256) === meta.bytes;
    if (!this.check(meta)) return false;
    this.#markVerified(meta);
    return true;
  }

  /** The total size of a blob's stored chunks, summed inside SQLite. */
  storedBytes(sha256: string): number {
    return (
      this.sql
        .exec<{ n: number | null }>("SELECT SUM(length(data)) AS n FROM blob_chunks WHERE sha256 = ?", sha256)
        .toArray()[0]?.n ?? 0
    );
  }

  meta(sha256: string): BlobMeta | null {
    const row = this.sql
      .exec<{ sha256: string; bytes: number; media_type: string; chunks: number; verified_at: string | null }>(
        "SELECT sha256, bytes, media_type, chunks, verified_at FROM blobs WHERE sha256 = ?",
        sha256,
      )
      .toArray()[0];
    return row
      ? {
          sha256: row.sha256,
          bytes: row.bytes,
          mediaType: row.media_type,
          chunks: row.chunks,
          verifiedAt: row.verified_at,
        }
      : null;
  }

  /** Bytes `offset`..`offset+limit` (whole blob when limit is omitted), reading only the chunks that overlap. */
  read(sha256: string, offset = 0, limit?: number): Uint8Array | null {
    const meta = this.meta(sha256);
    if (!meta) return null;
    const start = Math.min(Math.max(0, offset), meta.bytes);
    const end = limit === undefined ? meta.bytes : Math.min(meta.bytes, start + Math.max(0, limit));
    const out = new Uint8Array(end - start);
    if (end <= start) return out;
    const first = Math.floor(start / BLOB_CHUNK_BYTES);
    const last = Math.floor((end - 1) / BLOB_CHUNK_BYTES);
    // Only the requested range of each overlapping chunk leaves SQLite (substr on a BLOB is by byte).
    const chunks = this.sql
      .exec<{ idx: number; data: ArrayBuffer }>(
        `SELECT idx, substr(data, MAX(? - idx * ?, 0) + 1, MIN(? - idx * ?, length(data)) - MAX(? - idx * ?, 0)) AS data
         FROM blob_chunks WHERE sha256 = ? AND idx BETWEEN ? AND ? ORDER BY idx`,
        start,
        BLOB_CHUNK_BYTES,
        end,
        BLOB_CHUNK_BYTES,
        start,
        BLOB_CHUNK_BYTES,
        sha256,
        first,
        last,
      )
      .toArray();
    for (const c of chunks) {
      const from = Math.max(start, c.idx * BLOB_CHUNK_BYTES);
      const data = new Uint8Array(c.data);
      if (from - start + data.byteLength <= out.byteLength) out.set(data, from - start);
    }
    return out;
  }

  readText(sha256: string): string | null {
    const bytes = this.read(sha256);
    return bytes ? new TextDecoder().decode(bytes) : null;
  }

  /** True when the stored bytes have the recorded size and digest. Reads one chunk at a time. */
  check(meta: Pick<BlobMeta, "sha256" | "bytes">): boolean {
    if (!this.meta(meta.sha256)) return false;
    const hash = createHash("sha256");
    let total = 0;
    for (let idx = 0; ; idx++) {
      const row = this.sql
        .exec<{ data: ArrayBuffer }>("SELECT data FROM blob_chunks WHERE sha256 = ? AND idx = ?", meta.sha256, idx)
        .toArray()[0];
      if (!row) break;
      const data = new Uint8Array(row.data);
      hash.update(data);
      total += data.byteLength;
    }
    return total === meta.bytes && hash.digest("hex") === meta.sha256;
  }
}
