import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { memoryOf } from "../../../src/features/memory/stub";
import { principalOf } from "../../../src/http/auth";
import { directoryIdOf } from "../../../src/http/types";
import { api, OTHER_TOKEN, TOKEN } from "../../do/helpers";

/** The memory object of the principal of `token`, as the Worker and its sessions name it. */
export function memoryStub(token: string = TOKEN) {
  return memoryOf(env, directoryIdOf(env, principalOf(token)).toString());
}

/** Runs `fn` on the SQLite of `token`'s memory object. */
export function onMemorySql<T>(token: string, fn: (sql: SqlStorage) => T): Promise<T> {
  const run = runInDurableObject as unknown as (
    stub: unknown,
    fn: (o: unknown, state: DurableObjectState) => T,
  ) => Promise<T>;
  return run(memoryStub(token), (_o, state) => fn(state.storage.sql));
}

/** Every entry of the principal (all pages), newest first. */
export async function allEntries(token: string = TOKEN): Promise<any[]> {
  const out: any[] = [];
  let before: string | null = null;
  for (;;) {
    const r = await api(`/v1/memory?limit=100${before ? `&before=${before}` : ""}`, { token });
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.entries);
    if (!r.body.next) return out;
    before = r.body.next;
  }
}

export function postMemory(json: unknown, token: string = TOKEN) {
  return api("/v1/memory", { method: "POST", json, token });
}

/** Empties the memory of both test principals (the do project's storage outlives a test). */
export async function clearMemory(): Promise<void> {
  for (const token of [TOKEN, OTHER_TOKEN])
    await onMemorySql(token, (sql) => {
      sql.exec("DELETE FROM entries");
      sql.exec("INSERT INTO entries_fts (entries_fts) VALUES ('delete-all')");
    });
}

/**
 * Fills `token`'s memory up to `count` entries of `bytes` each (a fixture: plain inserts into the
 * store's tables, without the per-entry checks that make a real insert cost more).
 */
export async function fillMemory(count: number, bytes: number, token: string = TOKEN): Promise<void> {
  await onMemorySql(token, (sql) => {
    const have = sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries").one().n;
    for (let i = have; i < count; i++) {
      const text = `${i.toString().padStart(8, "0")} ${"w".repeat(Math.max(0, bytes - 9))}`.slice(0, bytes);
      const { n } = sql
        .exec<{ n: number }>(
          "INSERT INTO entries (id, text, topic, pinned, source, created_at, bytes) VALUES (?, ?, NULL, 0, ?, ?, ?) RETURNING n",
          `mem_${i.toString(16).padStart(32, "0")}`,
          text,
          JSON.stringify({ api: true }),
          "2026-01-01T00:00:00.000Z",
          bytes,
        )
        .one();
      sql.exec("INSERT INTO entries_fts (rowid, text) VALUES (?, ?)", n, text);
    }
  });
}
