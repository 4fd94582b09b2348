/**
 * The oldest queued run (docs/API.md §6) is asked for each time the alarm is armed: it costs one
 * row read whatever the number of runs the session has had, counted as Durable Object SQLite
 * bills reads (`rowsRead`).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { oldestQueuedRun } from "../../../src/features/work/cache";
import type { RunRow } from "../../../src/features/work/facts";
import { applyMigrations, type SqlLike } from "../../../src/storage";

function runRow(i: number, state: RunRow["state"], turnId: string | null): RunRow {
  return {
    runId: `run-${i}`,
    turnId,
    trigger: null,
    state,
    outcome: state === "completed" ? "completed" : null,
    startedAt: "2026-12-03T00:00:00.000Z",
    endedAt: state === "completed" ? "2026-12-03T00:00:01.000Z" : null,
    count: 1,
    text: state === "waiting" ? `queued ${i}` : null,
    seq: i,
  };
}

describe("the oldest queued run", () => {
  it("is one row read among 3,000 finished runs", async () => {
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`queued-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_o, state) => {
      const raw = state.storage.sql;
      state.storage.transactionSync(() => {
        applyMigrations(raw);
        const put = (r: RunRow) =>
          raw.exec(
            "INSERT INTO runs (run_id, turn_id, trigger_name, state, seq, body) VALUES (?, ?, ?, ?, ?, ?)",
            r.runId,
            r.turnId,
            r.trigger,
            r.state,
            r.seq,
            JSON.stringify(r),
          );
        for (let i = 1; i <= 3_000; i++) put(runRow(i, "completed", `turn-${i}`));
        put(runRow(3_001, "running", "turn-3001"));
        put(runRow(3_002, "waiting", null));
        put(runRow(3_003, "waiting", null));
      });
      let rowsRead = 0;
      const sql = {
        exec(query: string, ...bindings: unknown[]) {
          const cursor = (
            raw.exec as (q: string, ...b: unknown[]) => SqlStorageCursor<Record<string, SqlStorageValue>>
          )(query, ...bindings);
          const all = cursor.toArray();
          rowsRead += cursor.rowsRead;
          return { toArray: () => all, one: () => all[0], [Symbol.iterator]: () => all[Symbol.iterator]() };
        },
      } as unknown as SqlLike;
      expect(oldestQueuedRun(sql)).toMatchObject({ runId: "run-3002", state: "waiting", text: "queued 3002" });
      expect(rowsRead).toBeLessThanOrEqual(2);
    });
  });
});
