import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Event, EventStore, ModelViewReads } from "../../src/log";
import { buildModelMessages } from "../../src/projections";
import type { SqlLike } from "../../src/storage";
import { applyMigrations } from "../../src/storage";
import { countingSql, offloadedLogDrafts } from "./bounded-log";

const RESULT_BYTES = 64 * 1024;

/** Runs `fn` on the storage of a fresh session object (its constructor applied the migrations). */
function inFreshObject<T>(name: string, fn: (state: DurableObjectState) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); these tests use its tables directly.
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    return fn(state);
  });
}

function storeOn(state: DurableObjectState, sql: SqlLike = state.storage.sql) {
  return new EventStore(sql, "s1", (fn) => state.storage.transactionSync(fn));
}

/** The model view's reads beside `store`, as session/wiring.ts makes them. */
function viewOn(state: DurableObjectState, store: EventStore, sql: SqlLike = state.storage.sql) {
  return new ModelViewReads(
    sql,
    (fn) => state.storage.transactionSync(fn),
    () => store.head().highWater,
  );
}

/** The context events as they were read before the model view: every visible row, raw. */
function rawContextEvents(store: EventStore): Event[] {
  return store
    .readAfter(0, 1_000_000)
    .filter((e) => e.modelVisibility === "visible" || e.actions?.modelRequest !== undefined);
}

const messagesOf = (events: Event[]) => buildModelMessages({ system: "sys", summary: null, events });

/** Bytes that leave SQLite for one context read over a log with `results` offloaded results. */
function contextBytes(state: DurableObjectState, results: number) {
  const counting = countingSql(state.storage.sql);
  const store = storeOn(state, counting.sql);
  store.append(offloadedLogDrafts(results, RESULT_BYTES));
  const view = viewOn(state, store, counting.sql);
  view.contextEventsAfter(0);
  counting.reset();
  const events = view.contextEventsAfter(0);
  return { bytes: counting.bytes(), events, store };
}

describe("context builds are bounded in bytes (docs/design.md §6)", () => {
  it("reads the same bytes per offloaded result whatever its size, never the archived body", async () => {
    const few = await inFreshObject("ctx3", (state) => contextBytes(state, 3).bytes);
    const many = await inFreshObject("ctx300", (state) => contextBytes(state, 300).bytes);
    // 300 results of 64 KiB are 19 MiB raw; the view reads only placeholders (~1 KiB each).
    expect(many).toBeLessThan(300 * 2048);
    expect(few).toBeLessThan(3 * 2048 + 1024);
    // Per result, the cost does not depend on how many are behind it.
    expect(many / 300).toBeLessThan((few / 3) * 1.5);
  });

  it("gives the model byte-identical messages to the raw log", async () => {
    await inFreshObject("ctx-same", (state) => {
      const { events, store } = contextBytes(state, 20);
      const viewed = JSON.stringify(messagesOf(events));
      expect(viewed).toBe(JSON.stringify(messagesOf(rawContextEvents(store))));
      expect(viewed).toContain('"offloaded":true');
      // The log itself keeps the whole result (docs/API.md §7.5).
      const response = store.get(5)!;
      expect(response.content).toMatchObject({ type: "functionResponse" });
      expect((response.content as { response: string }).response.length).toBe(RESULT_BYTES);
    });
  });

  it("rebuilds a lost model view from the log, giving the same messages", async () => {
    await inFreshObject("ctx-rebuild", (state) => {
      const sql = state.storage.sql;
      const { events } = contextBytes(state, 10);
      const before = JSON.stringify(messagesOf(events));
      const rows = () => sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM model_view").one().n;
      expect(rows()).toBe(10);
      sql.exec("DELETE FROM model_view");
      sql.exec("DELETE FROM caches WHERE name = 'model_view'");
      // A fresh store over the same storage, as after an eviction.
      const counting = countingSql(sql);
      const view = viewOn(state, storeOn(state, counting.sql), counting.sql);
      view.contextEventsAfter(0);
      expect(rows()).toBe(10);
      counting.reset();
      const after = view.contextEventsAfter(0);
      expect(counting.bytes()).toBeLessThan(10 * 2048);
      expect(JSON.stringify(messagesOf(after))).toBe(before);
    });
  });
});
