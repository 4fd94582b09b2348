import m0001 from "../../migrations/0001_init.sql";
import m0002 from "../../migrations/0002_model_view.sql";
import m0003 from "../../migrations/0003_work.sql";
import m0005 from "../../migrations/0005_records.sql";
import m0006 from "../../migrations/0006_kind_index.sql";
import m0007 from "../../migrations/0007_step_rows.sql";
import m0010 from "../../migrations/0010_a2a_push.sql";
import m0011 from "../../migrations/0011_runs_waiting.sql";
import type { SqlLike } from "./sql";

/** Forward-only migrations, in order. The id is the file name without `.sql`. */
export const MIGRATIONS: { id: string; sql: string }[] = [
  { id: "0001_init", sql: m0001 },
  { id: "0002_model_view", sql: m0002 },
  { id: "0003_work", sql: m0003 },
  { id: "0005_records", sql: m0005 },
  { id: "0006_kind_index", sql: m0006 },
  { id: "0007_step_rows", sql: m0007 },
  { id: "0010_a2a_push", sql: m0010 },
  { id: "0011_runs_waiting", sql: m0011 },
];

/**
 * Applies every migration not yet recorded in `_migrations`.
 * DO SQLite has no `PRAGMA user_version`, so applied ids are kept in a table.
 * Call inside `transactionSync` so a half-applied migration never commits.
 */
export function applyMigrations(sql: SqlLike, migrations = MIGRATIONS): string[] {
  sql.exec("CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  const done = new Set(
    sql
      .exec<{ id: string }>("SELECT id FROM _migrations")
      .toArray()
      .map((r) => r.id),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.id)) continue;
    for (const statement of splitStatements(m.sql)) sql.exec(statement);
    sql.exec("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)", m.id, new Date().toISOString());
    applied.push(m.id);
  }
  return applied;
}

/** Splits a migration file into statements (our .sql files hold no semicolons inside literals). */
export function splitStatements(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);
}
