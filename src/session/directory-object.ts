import { DurableObject } from "cloudflare:workers";
import { applyMigrations } from "../storage";

const DIRECTORY_MIGRATIONS = [
  {
    id: "0001_directory",
    sql: `CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_id TEXT, created_at TEXT NOT NULL);
CREATE INDEX sessions_created ON sessions (created_at DESC, id DESC);
CREATE TABLE rate (minute INTEGER PRIMARY KEY, count INTEGER NOT NULL)`,
  },
  // The rate is counted at the edge now (session/rate.ts): the directory is on no request's path but creating and listing.
  { id: "0002_no_rate", sql: "DROP TABLE rate" },
];

/**
 * One per principal: which sessions it owns (so the Worker never touches, and thereby
 * creates, a session object for an id the caller does not own).
 */
export class DirectoryObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => applyMigrations(ctx.storage.sql, DIRECTORY_MIGRATIONS));
  }

  has(id: string): boolean {
    return this.ctx.storage.sql.exec("SELECT 1 FROM sessions WHERE id = ?", id).toArray().length > 0;
  }

  /** Registers a session id before its object is written, so that a session is never unreachable. */
  add(id: string, parentId: string | null, createdAt: string): void {
    this.ctx.storage.sql.exec(
      "INSERT OR IGNORE INTO sessions (id, parent_id, created_at) VALUES (?, ?, ?)",
      id,
      parentId,
      createdAt,
    );
  }

  /** Takes back a registration whose session was refused at creation. */
  remove(id: string): void {
    this.ctx.storage.sql.exec("DELETE FROM sessions WHERE id = ?", id);
  }

  /** Newest first; the cursor is `<createdAt>|<id>` of the last row returned. */
  list(limit: number, before?: string): { ids: string[]; next?: string } {
    const sql = this.ctx.storage.sql;
    const [at, id] = before ? before.split("|") : [];
    const rows = (
      before
        ? sql.exec<{ id: string; created_at: string }>(
            "SELECT id, created_at FROM sessions WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?",
            at ?? "",
            id ?? "",
            limit + 1,
          )
        : sql.exec<{ id: string; created_at: string }>(
            "SELECT id, created_at FROM sessions ORDER BY created_at DESC, id DESC LIMIT ?",
            limit + 1,
          )
    ).toArray();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      ids: page.map((r) => r.id),
      ...(rows.length > limit && last ? { next: `${last.created_at}|${last.id}` } : {}),
    };
  }
}
