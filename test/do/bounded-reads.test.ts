/**
 * docs/design.md#principles (bounded everything): reads the runtime repeats do not grow with the
 * log. Measured as rows SQLite read from `events` (the cursor's `rowsRead`), never as time.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FEATURES } from "../../src/features";
import { readForkSource } from "../../src/features/fork/commands";
import { EventStore, ModelViewReads } from "../../src/log";
import type { ModelConfig } from "../../src/model/types";
import { type RuntimeDeps, SessionRuntime } from "../../src/runtime";
import type { ChildReport, ChildrenPort } from "../../src/runtime/children";
import { applyMigrations, type SqlLike } from "../../src/storage";
import { type Step, scriptedProvider } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** `sql` that adds up the rows SQLite read for every statement over `events`. */
function counting(sql: SqlStorage): { sql: SqlLike; rows: () => number; reset: () => void } {
  let n = 0;
  const wrapped: SqlLike = {
    exec(query: string, ...bindings: unknown[]) {
      const cursor = sql.exec(query, ...bindings);
      if (!/\bevents\b/.test(query)) return cursor;
      return new Proxy(cursor, {
        get(target, prop) {
          if (prop === "toArray")
            return () => {
              const out = target.toArray();
              n += target.rowsRead;
              return out;
            };
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    },
  } as SqlLike;
  return {
    sql: wrapped,
    rows: () => n,
    reset: () => {
      n = 0;
    },
  };
}

async function withCountedRuntime(
  opts: { next: () => Step; children?: ChildrenPort; approvals?: boolean },
  fn: (rt: SessionRuntime, count: ReturnType<typeof counting>) => Promise<void>,
) {
  const stub = env.SESSIONS.get(env.SESSIONS.newUniqueId());
  await runInDurableObject(stub, async (_o, state) => {
    const count = counting(state.storage.sql);
    const transactionSync = <R>(f: () => R): R => state.storage.transactionSync(f);
    transactionSync(() => applyMigrations(state.storage.sql));
    const provider = scriptedProvider({ next: opts.next });
    const store = new EventStore(count.sql, state.id.toString(), transactionSync);
    const deps: RuntimeDeps = {
      sessionId: state.id.toString(),
      store,
      view: new ModelViewReads(count.sql, transactionSync, () => store.head().highWater),
      sql: count.sql,
      transactionSync,
      setAlarm: async () => {},
      deleteAlarm: async () => {},
      providerFor: () => provider,
      fetch: () => Promise.reject(new Error("no network")),
      config: { httpAllowedHosts: [], offloadThresholdBytes: 32_768 },
      onCommit: () => {},
      onDelta: () => {},
      features: FEATURES,
      ...(opts.children ? { children: opts.children } : {}),
      policy: { backoffMs: [0, 0, 0, 0], sliceBackoffMs: [0, 0, 0, 0] },
    };
    await fn(new SessionRuntime(deps), count);
  });
}

/** Hidden events of no turn, like a 1 s trigger's firings while a turn waits for a human. */
const noise = (rt: SessionRuntime, n: number) => {
  for (let i = 0; i < n; i++)
    rt.commit([{ author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { note: i } } }]);
};

describe("bounded reads", () => {
  it("turnSuffix keeps a position: a read after 300 foreign events reads them once, the next reads none", async () => {
    let n = 0;
    const next = (): Step =>
      n++ === 0
        ? { kind: "call", name: "write_file", args: { path: "a.txt", content: "x" } }
        : { kind: "answer", text: "ok" };
    await withCountedRuntime({ next }, async (rt, count) => {
      rt.create({ id: "s", parentId: null, options: { approvals: [{ tool: "write_file" }] }, model: MODEL });
      await rt.postMessage({ text: "write", source: "http" });
      await rt.alarm();
      expect(rt.session().status).toBe("waiting_approval");
      const own = rt.turnSuffix().length;
      noise(rt, 300);
      count.reset();
      expect(rt.turnSuffix()).toHaveLength(own);
      expect(count.rows()).toBeLessThanOrEqual(310);
      count.reset();
      expect(rt.turnSuffix()).toHaveLength(own);
      expect(count.rows()).toBeLessThanOrEqual(2);
      noise(rt, 300);
      count.reset();
      rt.turnSuffix();
      rt.turnSuffix();
      expect(count.rows()).toBeLessThanOrEqual(310);
      // The decision goes through on the same suffix.
      await rt.decide({ requestId: rt.summary!.pendingApprovals[0]!.requestId, decision: "approve" });
      await rt.alarm();
      expect(rt.session()).toMatchObject({ status: "idle", openTurn: false });
    });
  });

  it("a child's report reads its result from one event, however long the log grew after its goal turn", async () => {
    const sent: ChildReport[] = [];
    const children: ChildrenPort = {
      childIdFor: () => "none",
      spawn: async () => ({ ok: false, error: { code: "internal", message: "no" } }),
      report: async (_p, input) => {
        sent.push(input);
        return { ok: false, error: { code: "not_found", message: "the parent is away" } };
      },
      stop: async () => ({ ok: true, value: {} }),
    };
    await withCountedRuntime({ next: () => ({ kind: "answer", text: "the result" }), children }, async (rt, count) => {
      await rt.createChild({
        parentId: "parent",
        callId: "call_b",
        depth: 1,
        goal: "hi",
        options: {},
        model: MODEL,
        directoryId: "none",
        owner: "owner",
      });
      await rt.alarm();
      expect(sent.at(-1)).toMatchObject({ status: "completed", result: "the result" });
      noise(rt, 500);
      count.reset();
      await rt.alarm();
      expect(sent).toHaveLength(2);
      expect(sent.at(-1)).toMatchObject({ status: "completed", result: "the result" });
      expect(count.rows()).toBeLessThanOrEqual(5);
    });
  });

  it("a fork's source reads the log to throughSeq, not to the head", async () => {
    await withCountedRuntime({ next: () => ({ kind: "answer", text: "done" }) }, async (rt, count) => {
      rt.create({ id: "s", parentId: null, options: {}, model: MODEL });
      await rt.postMessage({ text: "hello", source: "http" });
      await rt.alarm();
      const through = rt.summary!.highWater;
      count.reset();
      const before = readForkSource(rt, through);
      const small = count.rows();
      // The same fork point after 2,000 more events reads no more than before.
      for (let i = 0; i < 4; i++) {
        await rt.postMessage({ text: `more ${i}`, source: "http" });
        await rt.alarm();
      }
      noise(rt, 2000);
      count.reset();
      const after = readForkSource(rt, through);
      expect(after.prefix).toEqual(before.prefix);
      expect(count.rows()).toBeLessThanOrEqual(small + 5);
    });
  });
});
