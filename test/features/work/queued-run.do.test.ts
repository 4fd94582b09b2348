/**
 * The oldest queued run (docs/API.md §6) is asked for each time the alarm is armed, and whether a
 * trigger has a run still going at each of its firings: each costs one row read whatever the
 * number of runs the session has had, counted as Durable Object SQLite bills reads (`rowsRead`).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hasUnfinishedRun, oldestQueuedRun } from "../../../src/features/work/cache";
import type { RunRow } from "../../../src/features/work/facts";
import { applyMigrations, type SqlLike } from "../../../src/storage";

function runRow(i: number, state: RunRow["state"], turnId: string | null, trigger: string | null = null): RunRow {
  return {
    runId: `run-${i}`,
    turnId,
    trigger,
    state,
    outcome: state === "completed" ? "completed" : null,
    startedAt: "2026-12-03T00:00:00.000Z",
    endedAt: state === "completed" ? "2026-12-03T00:00:01.000Z" : null,
    count: 1,
    text: state === "waiting" ? `queued ${i}` : null,
    seq: i,
  };
}

/** A fresh object with `runs` in its runs table; `ask` gets a SQL handle that counts rows read. */
function withRuns<T>(runs: RunRow[], ask: (sql: SqlLike) => T): Promise<{ value: T; rowsRead: number }> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`runs-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    const raw = state.storage.sql;
    state.storage.transactionSync(() => {
      applyMigrations(raw);
      for (const r of runs)
        raw.exec(
          "INSERT INTO runs (run_id, turn_id, trigger_name, state, seq, body) VALUES (?, ?, ?, ?, ?, ?)",
          r.runId,
          r.turnId,
          r.trigger,
          r.state,
          r.seq,
          JSON.stringify(r),
        );
    });
    let rowsRead = 0;
    const sql = {
      exec(query: string, ...bindings: unknown[]) {
        const cursor = (raw.exec as (q: string, ...b: unknown[]) => SqlStorageCursor<Record<string, SqlStorageValue>>)(
          query,
          ...bindings,
        );
        const all = cursor.toArray();
        rowsRead += cursor.rowsRead;
        return { toArray: () => all, one: () => all[0], [Symbol.iterator]: () => all[Symbol.iterator]() };
      },
    } as unknown as SqlLike;
    const value = ask(sql);
    return { value, rowsRead };
  });
}

const finished = (n: number, trigger: string | null = null) =>
  Array.from({ length: n }, (_, i) => runRow(i + 1, "completed", `turn-${i + 1}`, trigger));

describe("runs asked for at every alarm and every firing", () => {
  it("the oldest queued run is one row read among 3,000 finished runs", async () => {
    const runs = [...finished(3_000), runRow(3_001, "running", "turn-3001"), runRow(3_002, "waiting", null)];
    runs.push(runRow(3_003, "waiting", null));
    const { value, rowsRead } = await withRuns(runs, oldestQueuedRun);
    expect(value).toMatchObject({ runId: "run-3002", state: "waiting", text: "queued 3002" });
    expect(rowsRead).toBeLessThanOrEqual(2);
  });

  it("whether a trigger has a run still going is one row read among its 3,000 finished runs", async () => {
    const runs = [...finished(3_000, "hourly"), runRow(3_001, "running", "turn-3001", "hourly")];
    const going = await withRuns(runs, (sql) => hasUnfinishedRun(sql, "hourly"));
    expect(going.value).toBe(true);
    expect(going.rowsRead).toBeLessThanOrEqual(2);
    const done = await withRuns(finished(3_000, "hourly"), (sql) => hasUnfinishedRun(sql, "hourly"));
    expect(done.value).toBe(false);
    expect(done.rowsRead).toBeLessThanOrEqual(2);
  });
});
