import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { assembleContext, loadLatestCheckpoint } from "../../src/context";
import { requestDigest } from "../../src/context/request-digest";
import { canonical, type EventDraft, EventStore } from "../../src/log";
import type { ModelConfig } from "../../src/model/types";
import type { SessionRuntime } from "../../src/runtime/session-runtime";
import { applyMigrations, type SqlLike } from "../../src/storage";
import { rowCounting } from "./row-counting";
import { runtimeOn as freshRuntime } from "./runtime-on";

const MODEL: ModelConfig = { provider: "demo", name: "demo", contextWindow: 1_000_000, maxOutputTokens: 8192 };

/** Runs `fn` on the storage of a fresh session object. */
function inFreshObject<T>(name: string, fn: (state: DurableObjectState) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    return fn(state);
  });
}

/** A runtime over the object's storage (`sql` may count its rows), as a new instance after an eviction would make it. */
function runtimeOn(state: DurableObjectState, id: string, sql: SqlLike = state.storage.sql) {
  return freshRuntime(sql, (fn) => state.storage.transactionSync(fn), id);
}

const note = (i: number): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  actions: { stateDelta: { note: i } },
});

describe("the summary fold keeps its position (docs/design.md#summary)", () => {
  it("a lost summary cache is folded on from its snapshot: a bounded suffix of rows, not the whole log", async () => {
    const out = await inFreshObject("summary-at", (state) => {
      const id = "s-summary-at";
      const { runtime } = runtimeOn(state, id);
      runtime.create({ id, parentId: null, options: { title: "long" }, model: MODEL });
      for (let g = 0; g < 30; g++) runtime.commit(Array.from({ length: 100 }, (_, i) => note(g * 100 + i)));
      runtime.commit([{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { title: "renamed" } } }]);
      const before = runtime.session();
      const sql = state.storage.sql;
      // The cache row is lost (as the bench's cold takeover loses it): the snapshot stays.
      sql.exec("DELETE FROM meta WHERE key = 'summary'");
      const fromSnapshot = rowCounting(sql);
      const warm = runtimeOn(state, id, fromSnapshot.sql).runtime.session();
      const snapshotRows = fromSnapshot.rowsRead();
      // Without the snapshot the whole log is folded.
      sql.exec("DELETE FROM meta WHERE key IN ('summary', 'summary_at')");
      const fromStart = rowCounting(sql);
      const cold = runtimeOn(state, id, fromStart.sql).runtime.session();
      return { before, warm, cold, snapshotRows, startRows: fromStart.rowsRead() };
    });
    expect(out.warm).toEqual(out.before);
    expect(out.cold).toEqual(out.before);
    expect(out.before.title).toBe("renamed");
    expect(out.startRows).toBeGreaterThan(3000);
    // At most one snapshot interval (1,000 events) and a commit group behind the head.
    expect(out.snapshotRows).toBeLessThan(1300);
  });

  it("the summary row is written every 32 seqs, not on every commit; a load folds the rest", async () => {
    const out = await inFreshObject("summary-rows", (state) => {
      const id = "s-summary-rows";
      const { runtime } = runtimeOn(state, id);
      runtime.create({ id, parentId: null, options: { title: "rows" }, model: MODEL });
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      // Rows written by statements that write the summary row (its key is bound as a value).
      const cursors: { rowsWritten: number }[] = [];
      sql.exec = ((q: string, ...b: SqlStorageValue[]) => {
        const c = exec(q, ...b);
        if (/^\s*INSERT INTO meta/i.test(q) && b[0] === "summary") cursors.push(c);
        return c;
      }) as typeof sql.exec;
      for (let i = 0; i < 64; i++) runtime.commit([note(i)]);
      sql.exec = exec;
      const summaryRows = cursors.reduce((n, c) => n + c.rowsWritten, 0);
      runtime.commit([{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { title: "last" } } }]);
      runtime.commit([note(99)]);
      return { summaryRows, before: runtime.session(), after: runtimeOn(state, id).runtime.session() };
    });
    // Twice in 64 commits (as the head passes two multiples of 32; an upsert of the row counts 1), not 64 times.
    expect(out.summaryRows).toBeGreaterThan(0);
    expect(out.summaryRows).toBeLessThanOrEqual(2);
    expect(out.after).toEqual(out.before);
    expect(out.after.title).toBe("last");
  });

  it("a snapshot the log no longer agrees with is not used", async () => {
    const out = await inFreshObject("summary-at-stale", (state) => {
      const id = "s-summary-stale";
      const { runtime } = runtimeOn(state, id);
      runtime.create({ id, parentId: null, options: { title: "a" }, model: MODEL });
      for (let g = 0; g < 12; g++) runtime.commit(Array.from({ length: 100 }, (_, i) => note(g * 100 + i)));
      const before = runtime.session();
      const sql = state.storage.sql;
      const row = JSON.parse(
        sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'summary_at'").one().value,
      );
      row.summary.title = "not from the log";
      row.summary.headDigest = "f".repeat(64);
      sql.exec("UPDATE meta SET value = ? WHERE key = 'summary_at'", JSON.stringify(row));
      sql.exec("DELETE FROM meta WHERE key = 'summary'");
      return { before, after: runtimeOn(state, id).runtime.session() };
    });
    expect(out.after).toEqual(out.before);
  });
});

describe("the request view is a cache of the log (docs/design.md#context)", () => {
  it("kept across a long turn, it gives byte-identical requests to a view rebuilt after eviction, at every step", async () => {
    const out = await inFreshObject("view-restart", (state) => {
      const id = "s-view";
      let { runtime, store } = runtimeOn(state, id);
      runtime.create({ id, parentId: null, options: { title: "t" }, model: MODEL });
      const turn = { turnId: "t1", runId: "r1" };
      runtime.commit([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "go" } }]);
      const build = (rt: SessionRuntime, st: EventStore) => {
        const deps = { store: st, view: rt.deps.view, sql: state.storage.sql };
        const ctx = assembleContext(
          deps,
          rt.contextInput(MODEL),
          loadLatestCheckpoint(deps, { repair: false }).checkpoint,
        ).ctx;
        return {
          bytes: canonical(ctx.messages),
          digest: requestDigest(ctx),
          estimated: ctx.estimatedTokens,
          tools: ctx.tools,
        };
      };
      const mismatches: number[] = [];
      // The kept view, one rebuilt from the checkpoint on a new instance, and the request hashed whole: one request.
      const compare = (step: number) => {
        const kept = build(runtime, store);
        const other = runtimeOn(state, id);
        const rebuilt = build(other.runtime, other.store);
        // New arrays: hashed whole, not taken from the view.
        const whole = requestDigest({ messages: JSON.parse(kept.bytes), tools: [...kept.tools] });
        if (kept.bytes !== rebuilt.bytes || kept.digest !== rebuilt.digest) mismatches.push(step);
        if (kept.estimated !== rebuilt.estimated) mismatches.push(-step);
        if (whole !== kept.digest) mismatches.push(1000 + step);
        return kept;
      };
      for (let step = 0; step < 60; step++) {
        const invocationId = `inv${step}`;
        const callId = `c${step}`;
        const kept = compare(step);
        // The kept view goes on in a new instance half-way, as after an eviction.
        if (step === 30) ({ runtime, store } = runtimeOn(state, id));
        runtime.commit([
          {
            author: "runtime",
            modelVisibility: "hidden",
            ...turn,
            invocationId,
            actions: {
              modelRequest: {
                throughSeq: store.head().highWater,
                checkpointId: null,
                estimatedTokens: 1,
                requestDigest: kept.digest,
              },
            },
          },
          ...(step % 4 === 0
            ? [
                {
                  author: "model" as const,
                  modelVisibility: "visible" as const,
                  ...turn,
                  invocationId,
                  content: { type: "text" as const, text: `thinking ${step}` },
                },
              ]
            : []),
          {
            author: "model",
            modelVisibility: "visible",
            ...turn,
            invocationId,
            content: { type: "functionCall", callId, name: "read_file", args: { path: `f${step}` } },
          },
        ]);
        // A call still pending (the answer is the view's tail): the request as it would read now.
        compare(2000 + step);
        if (step % 7 === 0)
          runtime.commit([
            { author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: `more ${step}` } },
          ]);
        runtime.commit([
          {
            author: "tool",
            modelVisibility: "visible",
            ...turn,
            content: {
              type: "functionResponse",
              callId,
              name: "read_file",
              status: "ok",
              response: { text: "x".repeat(step * 10) },
            },
          },
        ]);
      }
      return { mismatches, final: build(runtime, store).bytes.length };
    });
    expect(out.mismatches).toEqual([]);
    expect(out.final).toBeGreaterThan(10_000);
  });
});

describe("the run loop's suffix is read once (docs/design.md#summary)", () => {
  it("asked again from the same seq, the store reads only the events committed since; the same events as a fresh read", async () => {
    const out = await inFreshObject("suffix", (state) => {
      const counted = rowCounting(state.storage.sql);
      const store = new EventStore(counted.sql, "s-suffix", (fn) => state.storage.transactionSync(fn));
      store.append(Array.from({ length: 300 }, (_, i) => note(i)));
      const first = store.readFrom(100).length;
      store.append([note(300), note(301)]);
      const before = counted.rowsRead();
      const again = store.readFrom(100);
      const rows = counted.rowsRead() - before;
      const fresh = new EventStore(state.storage.sql, "s-suffix", (fn) => state.storage.transactionSync(fn)).readFrom(
        100,
      );
      return { first, rows, same: JSON.stringify(again) === JSON.stringify(fresh), length: again.length };
    });
    expect(out.first).toBe(201);
    expect(out.length).toBe(203);
    expect(out.same).toBe(true);
    // The two new rows (and the head lookup), not the 203 of the suffix.
    expect(out.rows).toBeLessThan(10);
  });
});
