import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { catchUpWork } from "../../src/features/work/cache";
import { EventStore } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import { settledTo } from "./drive";
import { api, createSession } from "./helpers";

/**
 * Migration 0003 on a session that lived before it: the runs and triggers tables are caches of
 * the log, so the object folds the existing log into them and GET /runs lists the old turns.
 */
describe("migration 0003 (runs, triggers)", () => {
  it("a log from before 0003 is folded into runs and triggers, exactly as if they had been kept live", async () => {
    const s = await createSession({ tools: [] });
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "one" } });
    await settledTo(s.id, (x) => !x.openTurn);
    await api(`/v1/sessions/${s.id}/triggers`, {
      method: "POST",
      json: { name: "later", text: "x", schedule: { everySeconds: 3600 } },
    });
    const live = (await api(`/v1/sessions/${s.id}/runs`)).body.runs;
    const liveTriggers = (await api(`/v1/sessions/${s.id}/triggers`)).body.triggers;
    expect(live).toHaveLength(1);

    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
    const rebuilt = await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const tx = <T>(fn: () => T): T => state.storage.transactionSync(fn);
      // The database as it was at 0002: no work tables, no fold mark.
      tx(() => {
        sql.exec("DROP TABLE runs");
        sql.exec("DROP TABLE triggers");
        sql.exec("DELETE FROM _migrations WHERE id = '0003_work'");
        sql.exec("DELETE FROM meta WHERE key = 'work_through'");
      });
      expect(tx(() => applyMigrations(sql))).toEqual(["0003_work"]);
      expect(sql.exec("SELECT COUNT(*) AS n FROM runs").one().n).toBe(0);
      catchUpWork(sql, new EventStore(sql, s.id, tx), tx);
      // A second catch-up finds nothing to fold (no double counting).
      catchUpWork(sql, new EventStore(sql, s.id, tx), tx);
      return sql.exec<{ body: string }>("SELECT body FROM runs").toArray().length;
    });
    expect(rebuilt).toBe(1);
    expect((await api(`/v1/sessions/${s.id}/runs`)).body.runs).toEqual(live);
    expect((await api(`/v1/sessions/${s.id}/triggers`)).body.triggers).toEqual(liveTriggers);
  });
});
