/**
 * A principal's memory in its object's SQLite (docs/API.md#memory): the entries, and an FTS5
 * index over their text kept in step in the same transaction. The index has `secure-delete` on,
 * so a forgotten entry's words leave the index when it is deleted, not at a later merge.
 */
import { MEMORY_LIMITS, type MemoryEntry, type MemorySource } from "../../contract";
import type { SqlLike } from "../../storage/sql";
import { entryBytes, ftsQuery, refuseAdd, type Usage } from "./entries";

export const MEMORY_MIGRATIONS = [
  {
    id: "0001_memory",
    sql: `CREATE TABLE entries (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  topic TEXT,
  pinned INTEGER NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE INDEX entries_topic ON entries (topic, n);
CREATE INDEX entries_pinned ON entries (pinned, n);
CREATE VIRTUAL TABLE entries_fts USING fts5(text, content = 'entries', content_rowid = 'n', tokenize = 'porter unicode61');
INSERT INTO entries_fts (entries_fts, rank) VALUES ('secure-delete', 1)`,
  },
];

type EntryRow = {
  n: number;
  id: string;
  text: string;
  topic: string | null;
  pinned: number;
  source: string;
  created_at: string;
};

function entryOf(r: EntryRow): MemoryEntry {
  return {
    id: r.id,
    text: r.text,
    ...(r.topic !== null ? { topic: r.topic } : {}),
    pinned: r.pinned === 1,
    source: JSON.parse(r.source) as MemorySource,
    createdAt: r.created_at,
  };
}

const COLUMNS = "e.n, e.id, e.text, e.topic, e.pinned, e.source, e.created_at";

export function usage(sql: SqlLike): Usage {
  return sql
    .exec<{ entries: number; bytes: number }>(
      "SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes FROM entries",
    )
    .one();
}

export function getEntry(sql: SqlLike, id: string): MemoryEntry | null {
  const row = sql.exec<EntryRow>(`SELECT ${COLUMNS} FROM entries e WHERE e.id = ?`, id).toArray()[0];
  return row ? entryOf(row) : null;
}

export type NewEntry = {
  id: string;
  text: string;
  topic?: string;
  pinned: boolean;
  source: MemorySource;
  createdAt: string;
};

/**
 * Adds the entry once: an id already stored answers the stored entry (`created: false`) whatever
 * the store holds; a new one beyond the limits is refused and nothing is written.
 */
export function addEntry(
  sql: SqlLike,
  e: NewEntry,
  limits = MEMORY_LIMITS,
): { ok: true; entry: MemoryEntry; created: boolean } | { ok: false; message: string } {
  const existing = getEntry(sql, e.id);
  if (existing) return { ok: true, entry: existing, created: false };
  const bytes = entryBytes(e);
  const refused = refuseAdd(usage(sql), bytes, limits);
  if (refused) return { ok: false, message: refused };
  const { n } = sql
    .exec<{ n: number }>(
      "INSERT INTO entries (id, text, topic, pinned, source, created_at, bytes) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING n",
      e.id,
      e.text,
      e.topic ?? null,
      e.pinned ? 1 : 0,
      JSON.stringify(e.source),
      e.createdAt,
      bytes,
    )
    .one();
  sql.exec("INSERT INTO entries_fts (rowid, text) VALUES (?, ?)", n, e.text);
  return { ok: true, entry: getEntry(sql, e.id)!, created: true };
}

/** Deletes the entry and its words from the index; false when there is none. */
export function deleteEntry(sql: SqlLike, id: string): boolean {
  const row = sql.exec<{ n: number; text: string }>("SELECT n, text FROM entries WHERE id = ?", id).toArray()[0];
  if (!row) return false;
  sql.exec("INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', ?, ?)", row.n, row.text);
  sql.exec("DELETE FROM entries WHERE n = ?", row.n);
  return true;
}

export function setPinned(sql: SqlLike, id: string, pinned: boolean): MemoryEntry | null {
  sql.exec("UPDATE entries SET pinned = ? WHERE id = ?", pinned ? 1 : 0, id);
  return getEntry(sql, id);
}

export type ListQuery = { q?: string; topic?: string; limit: number; before?: string };

/**
 * A page of entries: with `q`, best first by bm25 (the cursor counts the entries already
 * given); else newest first (the cursor is the last entry's position). A cursor of another
 * shape is read as the start.
 */
export function listEntries(sql: SqlLike, query: ListQuery): { entries: MemoryEntry[]; next: string | null } {
  const topic = query.topic ?? null;
  const take = query.limit + 1;
  let rows: EntryRow[];
  let cursorOf: (page: EntryRow[]) => string;
  if (query.q !== undefined) {
    const match = ftsQuery(query.q);
    if (match === null) return { entries: [], next: null };
    const offset = cursorNumber(query.before, "o") ?? 0;
    // Without a topic the ranking needs the index alone: the page is picked there, and only its
    // rows are read from `entries` (not every match's, which is most of a recall's cost).
    rows =
      topic === null
        ? sql
            .exec<EntryRow>(
              `SELECT ${COLUMNS} FROM (SELECT rowid, bm25(entries_fts) AS rank FROM entries_fts
                 WHERE entries_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ? OFFSET ?) f
               JOIN entries e ON e.n = f.rowid ORDER BY f.rank, e.n DESC`,
              match,
              take,
              offset,
            )
            .toArray()
        : sql
            .exec<EntryRow>(
              `SELECT ${COLUMNS} FROM entries_fts f JOIN entries e ON e.n = f.rowid
               WHERE entries_fts MATCH ? AND e.topic = ?
               ORDER BY bm25(entries_fts), e.n DESC LIMIT ? OFFSET ?`,
              match,
              topic,
              take,
              offset,
            )
            .toArray();
    cursorOf = (page) => `o${offset + page.length}`;
  } else {
    const before = cursorNumber(query.before, "n") ?? Number.MAX_SAFE_INTEGER;
    rows = sql
      .exec<EntryRow>(
        `SELECT ${COLUMNS} FROM entries e WHERE e.n < ? AND (? IS NULL OR e.topic = ?) ORDER BY e.n DESC LIMIT ?`,
        before,
        topic,
        topic,
        take,
      )
      .toArray();
    cursorOf = (page) => `n${page.at(-1)!.n}`;
  }
  const page = rows.slice(0, query.limit);
  return { entries: page.map(entryOf), next: rows.length > query.limit ? cursorOf(page) : null };
}

/** The pinned entries, newest first (at most `limit`). */
export function pinnedEntries(sql: SqlLike, limit: number): MemoryEntry[] {
  return sql
    .exec<EntryRow>(`SELECT ${COLUMNS} FROM entries e WHERE e.pinned = 1 ORDER BY e.n DESC LIMIT ?`, limit)
    .toArray()
    .map(entryOf);
}

function cursorNumber(cursor: string | undefined, kind: "o" | "n"): number | null {
  const m = cursor ? /^([on])(\d{1,15})$/.exec(cursor) : null;
  return m && m[1] === kind ? Number(m[2]) : null;
}
