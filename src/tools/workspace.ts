import type { SqlLike } from "../storage";
import { normalizeWorkspacePath } from "./paths";
import type { FileChange } from "./types";

/** A row of the `files` table, as stored. */
export type FileRow = {
  path: string;
  content: string;
  bytes: number;
  version: number;
  updated_at: string;
  seq: number;
};

/** What a listing shows about a file. */
export type { FileEntry } from "../contract/reads";

import type { FileEntry } from "../contract/reads";

const encoder = new TextEncoder();

/**
 * Files at or under `dir` ("" or undefined = the whole workspace), sorted by path.
 * `dir` must already be a normalized path; `limit` bounds the rows read.
 */
export function listFiles(sql: SqlLike, dir?: string, limit?: number): FileEntry[] {
  const max = limit ?? -1; // SQLite: a negative LIMIT means no limit
  const rows = dir
    ? sql
        .exec<{ path: string; bytes: number; updated_at: string }>(
          "SELECT path, bytes, updated_at FROM files WHERE path = ? OR substr(path, 1, length(?)) = ? ORDER BY path LIMIT ?",
          dir,
          `${dir}/`,
          `${dir}/`,
          max,
        )
        .toArray()
    : sql
        .exec<{ path: string; bytes: number; updated_at: string }>(
          "SELECT path, bytes, updated_at FROM files ORDER BY path LIMIT ?",
          max,
        )
        .toArray();
  return rows.map((r) => ({ path: r.path, bytes: r.bytes, updatedAt: r.updated_at }));
}

/** The stored row for one normalized path, or null. */
export function readFileRow(sql: SqlLike, path: string): FileRow | null {
  return (
    sql
      .exec<FileRow>("SELECT path, content, bytes, version, updated_at, seq FROM files WHERE path = ?", path)
      .toArray()[0] ?? null
  );
}

/**
 * Applies a write tool's changes to the workspace. The runtime calls this inside
 * the transaction that commits the tool's `ok` outcome (event `seq`), so the
 * table stays a projection of the log. Upserts bump `version`; `content: null` deletes.
 */
export function applyFileChanges(sql: SqlLike, changes: FileChange[], seq: number, at: string): void {
  for (const change of changes) {
    const checked = normalizeWorkspacePath(change.path);
    // Tools hand over normalized paths; anything else here is a bug, and throwing rolls the outcome back.
    if (!checked.ok || checked.path !== change.path) throw new Error(`bad workspace path: ${change.path}`);
    if (change.content === null) {
      sql.exec("DELETE FROM files WHERE path = ?", change.path).toArray();
      continue;
    }
    sql
      .exec(
        `INSERT INTO files (path, content, bytes, version, updated_at, seq) VALUES (?, ?, ?, 1, ?, ?)
         ON CONFLICT (path) DO UPDATE SET content = excluded.content, bytes = excluded.bytes,
           version = files.version + 1, updated_at = excluded.updated_at, seq = excluded.seq`,
        change.path,
        change.content,
        encoder.encode(change.content).byteLength,
        at,
        seq,
      )
      .toArray();
  }
}

/** One page of the workspace listing, sorted by path: files after `after` (exclusive), at most `limit`. */
export function listFilesPage(
  sql: SqlLike,
  after: string | null,
  limit: number,
): { files: FileEntry[]; next?: string } {
  const rows = sql
    .exec<{ path: string; bytes: number; updated_at: string }>(
      "SELECT path, bytes, updated_at FROM files WHERE path > ? ORDER BY path LIMIT ?",
      after ?? "",
      limit + 1,
    )
    .toArray();
  const files = rows.slice(0, limit).map((r) => ({ path: r.path, bytes: r.bytes, updatedAt: r.updated_at }));
  return rows.length > limit ? { files, next: files.at(-1)!.path } : { files };
}
