/**
 * One owner for the alarm (docs/design.md#where-things-live): no writer drops what another part
 * of the object owes. The three races of issue 17 item 8, each driven deterministically: the
 * object's own alarm by `runDurableObjectAlarm`, or a runtime whose alarm port the test holds.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FEATURES } from "../../src/features";
import { principalOf } from "../../src/http/auth";
import { EventStore, ModelViewReads } from "../../src/log";
import type { ModelConfig, ModelProvider } from "../../src/model/types";
import { type RuntimeDeps, SessionRuntime } from "../../src/runtime";
import type { ChildrenPort } from "../../src/runtime/children";
import { applyMigrations } from "../../src/storage";
import { type Step, scriptedProvider, withSession } from "./context-harness";
import { api, TOKEN } from "./helpers";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };
const DEMO: ModelConfig = { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 4_096 };

const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));
const alarmOf = (id: string) => runInDurableObject(stubOf(id), (_o, state) => state.storage.getAlarm());

/** The alarm port as the storage sees it: the last write wins. */
function alarmPort() {
  const port = {
    at: null as number | null,
    ops: [] as string[],
    /** Runs once, inside the next `deleteAlarm`, before it resolves (a command landing meanwhile). */
    onDelete: null as (() => Promise<unknown>) | null,
    landed: null as Promise<unknown> | null,
    setAlarm: async (at: number) => {
      port.at = at;
      port.ops.push(`set ${at}`);
    },
    deleteAlarm: async () => {
      port.at = null;
      port.ops.push("delete");
      const hook = port.onDelete;
      port.onDelete = null;
      if (hook) port.landed = hook();
    },
  };
  return port;
}

describe("DELETE /triggers keeps what else is owed", () => {
  it("a child's report still to retry keeps its alarm when the session's last trigger is deleted", async () => {
    // A child whose parent was never written: its report is refused, so the outbox retries.
    const parentId = env.SESSIONS.newUniqueId().toString();
    const child = env.SESSIONS.newUniqueId();
    const stub = env.SESSIONS.get(child);
    const created = await stub.createChild({
      parentId,
      callId: "call_race_1",
      depth: 1,
      goal: "say hi",
      options: {},
      model: DEMO,
      directoryId: "none",
      principal: principalOf(TOKEN),
    });
    expect(created.ok).toBe(true);
    const id = child.toString();
    for (let i = 0; i < 50; i++) {
      const s = (await api(`/v1/sessions/${id}`)).body;
      if (!s.openTurn) break;
      await runDurableObjectAlarm(stub);
    }
    const s = (await api(`/v1/sessions/${id}`)).body;
    expect(s).toMatchObject({ status: "idle", openTurn: false });
    const events = (await api(`/v1/sessions/${id}/events`)).body.events as any[];
    expect(events.some((e) => e.actions?.stateDelta?.reportAcked)).toBe(false);
    // The outbox holds the alarm for its retry.
    expect(await alarmOf(id)).not.toBeNull();

    const t = await api(`/v1/sessions/${id}/triggers`, {
      method: "POST",
      json: { name: "later", text: "x", schedule: { everySeconds: 3600 } },
    });
    expect(t.status).toBe(201);
    expect((await api(`/v1/sessions/${id}/triggers/later`, { method: "DELETE" })).status).toBe(204);
    const after = await alarmOf(id);
    expect(after).not.toBeNull();
    // The outbox's retry, not the deleted trigger's hour.
    expect(after!).toBeLessThan(Date.now() + 60_000);
  });
});

/** A runtime on a real object's SQLite whose alarm port, clock and children port the test holds. */
async function withChildRuntime(
  opts: { providerFor: () => ModelProvider; children: ChildrenPort; now: () => number },
  fn: (rt: SessionRuntime, port: ReturnType<typeof alarmPort>) => Promise<void>,
) {
  const stub = env.SESSIONS.get(env.SESSIONS.newUniqueId());
  await runInDurableObject(stub, async (_o, state) => {
    const sql = state.storage.sql;
    const transactionSync = <R>(f: () => R): R => state.storage.transactionSync(f);
    transactionSync(() => applyMigrations(sql));
    const port = alarmPort();
    const store = new EventStore(sql, state.id.toString(), transactionSync);
    const deps: RuntimeDeps = {
      sessionId: state.id.toString(),
      store,
      view: new ModelViewReads(sql, transactionSync, () => store.head().highWater),
      sql,
      transactionSync,
      setAlarm: port.setAlarm,
      deleteAlarm: port.deleteAlarm,
      providerFor: opts.providerFor,
      fetch: () => Promise.reject(new Error("no network")),
      config: { httpAllowedHosts: [], offloadThresholdBytes: 32_768 },
      onCommit: () => {},
      onDelta: () => {},
      features: FEATURES,
      now: opts.now,
      children: opts.children,
      policy: { backoffMs: [0, 0, 0, 0], sliceBackoffMs: [2000, 4000, 8000, 16_000] },
    };
    await fn(new SessionRuntime(deps), port);
  });
}

describe("the outbox never overrides a slice's retry or backoff", () => {
  it("a report acknowledged after a failed slice leaves the alarm at the slice's backoff, and an early alarm runs no slice", async () => {
    let t = 5_000_000;
    const now = () => t;
    let reports = 0;
    const children: ChildrenPort = {
      childIdFor: () => "none",
      spawn: async () => ({ ok: false, error: { code: "internal", message: "no" } }),
      // The first report is refused (the parent is away); the next is acknowledged.
      report: async () =>
        ++reports === 1
          ? { ok: false, error: { code: "not_found", message: "away" } }
          : { ok: true, value: { acked: true } },
      stop: async () => ({ ok: true, value: {} }),
    };
    let broken = false;
    let built = 0;
    const provider = scriptedProvider({ next: () => ({ kind: "answer", text: "done" }) });
    const providerFor = () => {
      built++;
      if (broken) throw new TypeError("a bug of ours");
      return provider;
    };
    await withChildRuntime({ providerFor, children, now }, async (rt, port) => {
      await rt.createChild({
        parentId: "parent",
        callId: "call_race_2",
        depth: 1,
        goal: "hi",
        options: {},
        model: MODEL,
        directoryId: "none",
        owner: "owner",
      });
      await rt.alarm();
      // The goal turn closed; its report was refused: the outbox retries in 1 s.
      expect(rt.summary?.openTurn).toBeNull();
      expect(reports).toBe(1);
      expect(port.at).toBe(t + 1_000);

      broken = true;
      await rt.postMessage({ text: "again", source: "http" });
      expect(port.at).toBe(t);
      await rt.alarm();
      // The slice failed (backoff 2 s); the report then went through. The backoff stands.
      expect(reports).toBe(2);
      expect(rt.summary?.children?.report).toBeNull();
      expect(port.at).toBe(t + 2_000);
      const builtAfterFailure = built;

      // An alarm before the backoff (driven early, or for another part) starts no slice.
      t += 1_000;
      await rt.alarm();
      expect(built).toBe(builtAfterFailure);
      expect(port.at).toBe(t + 1_000);
      t += 1_000;
      broken = false;
      await rt.alarm();
      expect(built).toBe(builtAfterFailure + 1);
      expect(rt.summary?.openTurn).toBeNull();
    });
  });
});

describe("a command landing during a slice's final alarm write is not left without an alarm", () => {
  const answer = (): Step => ({ kind: "answer", text: "done" });

  it("postMessage: a turn opened while the closing slice deletes its alarm gets an alarm", async () => {
    const port = alarmPort();
    await withSession(
      {
        provider: scriptedProvider({ next: answer }),
        model: MODEL,
        setAlarm: port.setAlarm,
        deleteAlarm: port.deleteAlarm,
      },
      async (h) => {
        await h.runtime.postMessage({ text: "first", source: "http" });
        port.onDelete = () => h.runtime.postMessage({ text: "second", source: "http" });
        await h.runtime.alarm();
        await port.landed;
        expect(port.ops).toContain("delete");
        expect(h.runtime.summary?.openTurn).not.toBeNull();
        expect(port.at).not.toBeNull();
        await h.runtime.alarm();
        expect(h.runtime.summary?.openTurn).toBeNull();
      },
    );
  });

  it("decide: an approval decided while the slice that asked for it deletes its alarm gets an alarm", async () => {
    const port = alarmPort();
    let n = 0;
    const next = (): Step =>
      n++ === 0 ? { kind: "call", name: "write_file", args: { path: "a.txt", content: "x" } } : answer();
    await withSession(
      {
        provider: scriptedProvider({ next }),
        model: MODEL,
        setAlarm: port.setAlarm,
        deleteAlarm: port.deleteAlarm,
        options: { approvals: [{ tool: "write_file" }] },
      },
      async (h) => {
        await h.runtime.postMessage({ text: "write it", source: "http" });
        port.onDelete = async () => {
          const requestId = h.runtime.summary!.pendingApprovals[0]!.requestId;
          return h.runtime.decide({ requestId, decision: "approve" });
        };
        await h.runtime.alarm();
        await port.landed;
        expect(port.ops).toContain("delete");
        expect(h.runtime.summary?.pendingApprovals).toEqual([]);
        expect(port.at).not.toBeNull();
        await h.runtime.alarm();
        expect(h.runtime.summary?.openTurn).toBeNull();
      },
    );
  });
});
