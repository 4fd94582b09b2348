import type { SqlLike } from "../storage";
import { sha256Hex } from "./hash";

/** Chunk size: blob rows stay well under the 2 MB SQLite row limit. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

export type BlobMeta = { sha256: string; bytes: number; mediaType: string; chunks: number };

const encoder = new TextEncoder();

/**
 * Content-addressed bytes inside one session's SQLite. `put` is synchronous so it
 * can share a transaction with the event that references it; it reads the stored
 * bytes back and checks size and sha256 before returning (archive first, placeholder second).
 */
export class BlobStore {
  constructor(private readonly sql: SqlLike) {}

  put(data: string | Uint8Array, mediaType = "text/plain; charset=utf-8"): BlobMeta {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    const sha256 = sha256Hex(bytes);
    const existing = this.meta(sha256);
    if (existing && this.check(existing)) return existing;
    const chunks = Math.max(1, Math.ceil(bytes.byteLength / BLOB_CHUNK_BYTES));
    this.sql.exec("DELETE FROM blob_chunks WHERE sha256 = ?", sha256);
    for (let i = 0; i < chunks; i++) {
      const part = bytes.subarray(i * BLOB_CHUNK_BYTES, (i + 1) * BLOB_CHUNK_BYTES);
      this.sql.exec("INSERT INTO blob_chunks (sha256, idx, data) VALUES (?, ?, ?)", sha256, i, part);
    }
    this.sql.exec(
      "INSERT OR REPLACE INTO blobs (sha256, bytes, media_type, chunks) VALUES (?, ?, ?, ?)",
      sha256,
      bytes.byteLength,
      mediaType,
      chunks,
    );
    const meta = { sha256, bytes: bytes.byteLength, mediaType, chunks };
    if (!this.check(meta)) throw new Error(`blob ${sha256} failed its read-back check`);
    return meta;
  }

  meta(sha256: string): BlobMeta | null {
    const row = this.sql
      .exec<{ sha256: string; bytes: number; media_type: string; chunks: number }>(
        "SELECT sha256, bytes, media_type, chunks FROM blobs WHERE sha256 = ?",
        sha256,
      )
      .toArray()[0];
    return row ? { sha256: row.sha256, bytes: row.bytes, mediaType: row.media_type, chunks: row.chunks } : null;
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
    const chunks = this.sql
      .exec<{ idx: number; data: ArrayBuffer }>(
        "SELECT idx, data FROM blob_chunks WHERE sha256 = ? AND idx BETWEEN ? AND ? ORDER BY idx",
        sha256,
        first,
        last,
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

  readText(sha256: string): string | null {
    const bytes = this.read(sha256);
    return bytes ? new TextDecoder().decode(bytes) : null;
  }

  /** True when the stored bytes have the recorded size and digest. */
  check(meta: Pick<BlobMeta, "sha256" | "bytes">): boolean {
    const bytes = this.read(meta.sha256);
    return bytes !== null && bytes.byteLength === meta.bytes && sha256Hex(bytes) === meta.sha256;
  }
}
