import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { catchUpWork, listRuns } from "../../src/features/work/cache";
import { type EventDraft, EventStore, verifySuffix } from "../../src/log";
import type { ModelConfig } from "../../src/model/types";
import { applyMigrations, type SqlLike } from "../../src/storage";
import { runtimeOn as freshRuntime } from "./runtime-on";

/**
 * What one commit writes (docs/design.md#3-storage): an ordinary event is one INSERT, with no
 * savepoint and no cache row; whatever throws inside a commit, nothing of it stays.
 */

const MODEL: ModelConfig = { provider: "demo", name: "demo", contextWindow: 1_000_000, maxOutputTokens: 8192 };

type Probe = { sql: SqlLike; writes: string[]; reads: { rowsRead: number }[]; transactions: () => number };

/** The object's SQL and transactionSync, counting write statements, rows read and transactions opened. */
function probe(state: DurableObjectState): Probe & { tx: <T>(fn: () => T) => T } {
  const raw = state.storage.sql;
  const writes: string[] = [];
  const reads: { rowsRead: number }[] = [];
  let transactions = 0;
  const sql = {
    exec(query: string, ...bindings: unknown[]) {
      const cursor = (raw.exec as (q: string, ...b: unknown[]) => { rowsRead: number })(query, ...bindings);
      if (/^\s*SELECT/i.test(query)) reads.push(cursor);
      else writes.push(query.trim().split(/\s+/).slice(0, 3).join(" "));
      return cursor;
    },
  } as unknown as SqlLike;
  const tx = <T>(fn: () => T): T => {
    transactions++;
    return state.storage.transactionSync(fn);
  };
  return { sql, writes, reads, transactions: () => transactions, tx };
}

function inFreshObject<T>(name: string, fn: (state: DurableObjectState) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    return fn(state);
  });
}

function runtimeOn(p: { sql: SqlLike; tx: <T>(fn: () => T) => T }, id: string) {
  return freshRuntime(p.sql, p.tx, id, {
    providerFor: () => {
      throw new Error("no model in this test");
    },
  });
}

const turn = { turnId: "t-1", runId: "r-1", invocationId: "i-1" };
const answer = (i: number): EventDraft => ({
  author: "model",
  modelVisibility: "visible",
  ...turn,
  content: { type: "text", text: `answer ${i}` },
});
const count = (state: DurableObjectState, table: string) =>
  state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;

describe("an ordinary commit writes its event only", () => {
  it("a model's answer inside a turn is one INSERT: no savepoint, no summary, run or marker row", async () => {
    const out = await inFreshObject("commit-one-insert", (state) => {
      const p = probe(state);
      const { runtime } = runtimeOn(p, "s-one");
      runtime.create({ id: "s-one", parentId: null, options: { title: "one" }, model: MODEL });
      runtime.commit([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "go" } }]);
      const before = { writes: p.writes.length, transactions: p.transactions() };
      // Seq 3 to 12: no multiple of the summary's write interval is passed.
      for (let i = 0; i < 10; i++) runtime.commit([answer(i)]);
      return {
        writes: p.writes.slice(before.writes),
        transactions: p.transactions() - before.transactions,
        head: runtime.summary?.highWater,
      };
    });
    expect(out.head).toBe(12);
    expect(out.writes).toEqual(Array.from({ length: 10 }, () => "INSERT INTO events"));
    expect(out.transactions).toBe(0);
  });

  it("a commit that changes a cache still writes it in the event's transaction", async () => {
    const out = await inFreshObject("commit-cache-rows", (state) => {
      const p = probe(state);
      const { runtime } = runtimeOn(p, "s-cache");
      runtime.create({ id: "s-cache", parentId: null, options: { title: "cache" }, model: MODEL });
      const before = { writes: p.writes.length, transactions: p.transactions() };
      runtime.commit([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "go" } }]);
      return {
        writes: p.writes.slice(before.writes),
        transactions: p.transactions() - before.transactions,
        runs: listRuns(state.storage.sql, null, 10).map((r) => r.runId),
      };
    });
    // The user's message opens run r-1: its row and the work marker join the event.
    expect(out.transactions).toBe(1);
    expect(out.writes).toEqual(["INSERT INTO events", "INSERT INTO runs", "INSERT INTO meta"]);
    expect(out.runs).toEqual(["r-1"]);
  });
});

describe("a commit is atomic without a savepoint of its own", () => {
  it("writes joined to a commit that then throws leave no event and no row", async () => {
    const out = await inFreshObject("commit-throws", (state) => {
      const p = probe(state);
      const { runtime, store } = runtimeOn(p, "s-throws");
      runtime.create({ id: "s-throws", parentId: null, options: { title: "t" }, model: MODEL });
      const events = count(state, "events");
      let thrown = "";
      try {
        runtime.commit([answer(1)], () => {
          p.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', 'x')");
          throw new Error("boom");
        });
      } catch (err) {
        thrown = (err as Error).message;
      }
      const after = {
        thrown,
        events: count(state, "events") - events,
        probe: state.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'probe'").toArray().length,
        head: runtime.summary?.highWater,
      };
      // The next commit takes the seq the failed one would have had, and the chain verifies.
      const [next] = runtime.commit([answer(2)]);
      return { ...after, nextSeq: next?.seq, problems: verifySuffix(store, 1) };
    });
    expect(out).toEqual({ thrown: "boom", events: 0, probe: 0, head: 1, nextSeq: 2, problems: [] });
  });

  it("a prepare that throws writes nothing; writes that throw after the event leave nothing", async () => {
    const out = await inFreshObject("append-prepared-throws", (state) => {
      const p = probe(state);
      const store = new EventStore(p.sql, "s-prep", p.tx);
      store.append([answer(0)]);
      const attempt = (fn: () => unknown) => {
        try {
          fn();
          return "ok";
        } catch (err) {
          return (err as Error).message;
        }
      };
      const a = attempt(() =>
        store.appendPrepared([answer(1)], () => {
          throw new Error("in prepare");
        }),
      );
      const b = attempt(() =>
        store.appendPrepared([answer(1)], () => () => {
          p.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', 'x')");
          throw new Error("in writes");
        }),
      );
      const [next] = store.append([answer(1)]);
      return {
        a,
        b,
        nextSeq: next?.seq,
        events: count(state, "events"),
        probe: state.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'probe'").toArray().length,
        problems: verifySuffix(store, 1),
      };
    });
    expect(out).toEqual({ a: "in prepare", b: "in writes", nextSeq: 2, events: 2, probe: 0, problems: [] });
  });
});

describe("the work tables follow the events that can change them (docs/design.md#3-storage)", () => {
  it("the marker moves with a run's events only; a catch-up reads what is after it through the kind index", async () => {
    const out = await inFreshObject("work-marker", (state) => {
      const p = probe(state);
      const { runtime, store } = runtimeOn(p, "s-work");
      runtime.create({ id: "s-work", parentId: null, options: { title: "w" }, model: MODEL });
      runtime.commit([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "go" } }]);
      const marker = () =>
        state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'work_through'").toArray()[0]
          ?.value;
      const opened = marker();
      for (let i = 0; i < 50; i++) runtime.commit([answer(i)]);
      const afterAnswers = marker();
      runtime.commit([
        { author: "runtime", modelVisibility: "hidden", ...turn, actions: { turnClose: { reason: "completed" } } },
      ]);
      const closed = marker();
      for (let i = 0; i < 200; i++)
        runtime.commit([{ author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { note: i } } }]);
      const afterNotes = marker();
      // The object starts again: the catch-up finds nothing after the marker, without walking the 200 notes.
      const readsBefore = p.reads.length;
      catchUpWork(p.sql, store, p.tx);
      const rowsRead = p.reads.slice(readsBefore).reduce((n, c) => n + c.rowsRead, 0);
      const live = listRuns(state.storage.sql, null, 10);
      // The cache is lost: a catch-up folds the run's events again, to the same rows.
      state.storage.sql.exec("DELETE FROM runs");
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'work_through'");
      catchUpWork(p.sql, store, p.tx);
      return {
        marks: [opened, afterAnswers, closed, afterNotes],
        rowsRead,
        live,
        rebuilt: listRuns(state.storage.sql, null, 10),
      };
    });
    expect(out.marks).toEqual(["2", "2", "53", "53"]);
    // The marker and a probe of the index per kind; the 200 notes after it would be 200 rows.
    expect(out.rowsRead).toBeLessThan(30);
    expect(out.live.map((r) => [r.runId, r.state, r.outcome])).toEqual([["r-1", "completed", "completed"]]);
    expect(out.rebuilt).toEqual(out.live);
  });
});
