/**
 * The A2A push outbox in a session object's own SQLite (docs/API.md#a2a-server): what the commit
 * hook writes for which events, that a re-applied commit writes nothing twice, how a try is
 * recorded before it is made, and what deleting a config takes with it. Each test runs in one
 * synchronous block of a fresh object, so no alarm interleaves.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  deleteConfig,
  dueRows,
  enqueueFor,
  listConfigs,
  MAX_CONFIGS,
  markTried,
  outboxDue,
  type PushConfig,
  saveConfig,
} from "../../../src/features/a2a-server/push-store";
import type { Event } from "../../../src/log";
import { applyMigrations } from "../../../src/storage";

const TASK = `${"b".repeat(64)}.3.t1`;
const config = (id: string): PushConfig => ({
  taskId: TASK,
  id,
  url: "https://hooks.example.com/a2a",
  token: "tok",
  authentication: null,
});
const event = (seq: number, turnId: string, actions: Event["actions"]) =>
  ({ seq, turnId, author: "runtime", at: `2026-12-02T00:00:0${seq % 10}.000Z`, actions }) as Event;
const working = { state: "working" as const, head: 4, at: "2026-12-02T00:00:00.000Z" };

function inFreshObject<T>(fn: (sql: SqlStorage) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`a2a-push-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) =>
    state.storage.transactionSync(() => {
      applyMigrations(state.storage.sql);
      return fn(state.storage.sql);
    }),
  );
}

const outbox = (sql: SqlStorage) =>
  sql.exec("SELECT task_id, config_id, seq, state, attempts FROM a2a_push_outbox ORDER BY seq").toArray();

describe("the A2A push outbox", () => {
  it("gets one row per config for each event that moves the config's turn, once however often applied", async () => {
    const rows = await inFreshObject((sql) => {
      saveConfig(sql, "t1", config("a"), working);
      saveConfig(sql, "t1", config("b"), working);
      const events = [
        event(5, "t1", { permissionRequest: { requestId: "r", callId: "c", tool: "write_file", args: {} } }),
        event(6, "t2", { turnClose: { reason: "completed" } }),
        event(7, "t1", { stateDelta: { note: 1 } }),
        event(8, "t1", { turnClose: { reason: "stopped" } }),
      ];
      enqueueFor(sql, events);
      enqueueFor(sql, events);
      return outbox(sql);
    });
    expect(rows).toEqual([
      { task_id: TASK, config_id: "a", seq: 5, state: "input-required", attempts: 0 },
      { task_id: TASK, config_id: "b", seq: 5, state: "input-required", attempts: 0 },
      { task_id: TASK, config_id: "a", seq: 8, state: "canceled", attempts: 0 },
      { task_id: TASK, config_id: "b", seq: 8, state: "canceled", attempts: 0 },
    ]);
  });

  it("records a try before it is made, so the row is due again at its retry", async () => {
    const seen = await inFreshObject((sql) => {
      saveConfig(sql, "t1", config("a"), { state: "completed", head: 9, at: "2026-12-02T00:00:09.000Z" });
      const due = dueRows(sql, 1_000, 20);
      markTried(sql, due[0]!, 5_000);
      return { due: due.length, after: dueRows(sql, 1_000, 20).length, next: outboxDue(sql), rows: outbox(sql) };
    });
    // A config set when the task had already finished is sent that state at once.
    expect(seen.due).toBe(1);
    expect(seen.after).toBe(0);
    expect(seen.next).toBe(5_000);
    expect(seen.rows).toEqual([{ task_id: TASK, config_id: "a", seq: 9, state: "completed", attempts: 1 }]);
  });

  it("deleting a config takes what it was still owed; a task holds at most MAX_CONFIGS", async () => {
    const r = await inFreshObject((sql) => {
      for (let i = 0; i < MAX_CONFIGS; i++) saveConfig(sql, "t1", config(`c${i}`), working);
      let refused = "";
      try {
        saveConfig(sql, "t1", config("one-more"), working);
      } catch (err) {
        refused = (err as Error).message;
      }
      // Replacing one of the ten is not an eleventh.
      saveConfig(sql, "t1", { ...config("c0"), url: "https://hooks.example.com/other" }, working);
      enqueueFor(sql, [event(5, "t1", { turnClose: { reason: "completed" } })]);
      const deleted = deleteConfig(sql, TASK, "c1");
      const again = deleteConfig(sql, TASK, "c1");
      return {
        refused,
        deleted,
        again,
        configs: listConfigs(sql, TASK).map((c) => [c.id, c.url]),
        owedTo: outbox(sql).map((o) => o.config_id),
      };
    });
    expect(r.refused).toContain(`at most ${MAX_CONFIGS}`);
    expect(r.deleted).toBe(true);
    expect(r.again).toBe(false);
    expect(r.configs).toHaveLength(MAX_CONFIGS - 1);
    expect(r.configs[0]).toEqual(["c0", "https://hooks.example.com/other"]);
    expect(r.owedTo).not.toContain("c1");
    expect(r.owedTo).toHaveLength(MAX_CONFIGS - 1);
  });
});
