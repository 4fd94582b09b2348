/**
 * Sub-sessions where they meet the rest of the runtime (docs/API.md#sub-sessions): a create
 * that throws, the cap on children that have not reported, a failed turn that still answers its
 * spawn and stops its child, and a stop that only the child itself acknowledges. A real runtime
 * on a real object's SQLite; the other objects are a port the test holds (no other object runs).
 */
import { describe, expect, it } from "vitest";
import type { Result } from "../../../src/contract";
import type { Event } from "../../../src/log";
import type { ModelConfig, ModelPart, ModelProvider } from "../../../src/model/types";
import type { ChildrenPort, ChildSpawn } from "../../../src/runtime/children";
import { recordSliceStart } from "../../../src/runtime/state";
import { scriptedProvider, withSession } from "../../do/context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** The other objects as a port: creates fail `spawnFailures` times first; stops answer `stopAnswer`. */
function fakePort(opts: { spawnFailures?: number } = {}) {
  let failures = opts.spawnFailures ?? 0;
  const seen = { spawns: [] as ChildSpawn[], stops: [] as string[] };
  let stopAnswer: Result<unknown> = { ok: true, value: {} };
  const port: ChildrenPort = {
    childIdFor: (callId) => `child-of-${callId}`,
    async spawn(input) {
      seen.spawns.push(input);
      if (failures-- > 0) throw new Error("Network connection lost.");
      return { ok: true, value: { sessionId: `child-of-${input.callId}`, status: "running" } };
    },
    report: async () => ({ ok: true, value: { acked: true } }),
    async stop(callId) {
      seen.stops.push(callId);
      return stopAnswer;
    },
  };
  return { port, seen, answerStops: (r: Result<unknown>) => (stopAnswer = r) };
}

const spawnsThenAnswer = () =>
  scriptedProvider({
    next: (_r, n) =>
      n === 0
        ? { kind: "call", name: "spawn_session", args: { goal: "count the stars" } }
        : { kind: "answer", text: "ok" },
  });

const callsOf = (events: Event[], name: string) =>
  events.flatMap((e) => (e.content?.type === "functionCall" && e.content.name === name ? [e.content.callId] : []));
const responsesTo = (events: Event[], callId: string) =>
  events.flatMap((e) => (e.content?.type === "functionResponse" && e.content.callId === callId ? [e.content] : []));

describe("a spawn whose create throws", () => {
  it("is no tool error: the call stays dispatched, a later slice creates the child, its report is appended once", async () => {
    const { port, seen } = fakePort({ spawnFailures: 2 });
    let clock = Date.now();
    await withSession(
      { provider: spawnsThenAnswer(), model: MODEL, children: port, directoryId: "dir", now: () => clock },
      async ({ runtime, events }) => {
        await runtime.postMessage({ text: "delegate", source: "http" });
        await runtime.alarm();
        const [callId] = callsOf(events(), "spawn_session");
        // Dispatched, created twice without success (at its run and by the wait), not answered.
        expect(events().filter((e) => e.actions?.toolDispatch?.callId === callId)).toHaveLength(1);
        expect(responsesTo(events(), callId!)).toEqual([]);
        expect(seen.spawns).toHaveLength(2);
        expect(runtime.session()).toMatchObject({ status: "waiting", wait: { kind: "child" } });

        // The next slice (due after the outbox delay) sends the idempotent create again; once
        // attached, it is not sent again.
        clock += 60_000;
        await runtime.alarm();
        expect(seen.spawns).toHaveLength(3);
        clock += 60_000;
        await runtime.alarm();
        expect(seen.spawns).toHaveLength(3);
        expect(seen.spawns.every((s) => s.callId === callId && s.goal === "count the stars")).toBe(true);

        const report = { callId: callId!, childId: `child-of-${callId}`, status: "completed" as const, result: "42" };
        await runtime.childReport(report);
        await runtime.childReport(report);
        for (let i = 0; runtime.summary?.openTurn; i++) {
          if (i > 20) throw new Error("the turn did not close");
          await runtime.alarm();
        }
        expect(responsesTo(events(), callId!)).toEqual([
          expect.objectContaining({
            status: "ok",
            response: { sessionId: `child-of-${callId}`, status: "completed", result: "42" },
          }),
        ]);
        expect(events().at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
      },
    );
  });
});

describe("a report that lands while the slice that found the wait is ending", () => {
  it("leaves the parent an alarm: the slice's last deleteAlarm is followed by the report's own", async () => {
    const { port } = fakePort();
    const alarms: string[] = [];
    let duringDelete: (() => void) | null = null;
    await withSession(
      {
        provider: spawnsThenAnswer(),
        model: MODEL,
        children: port,
        directoryId: "dir",
        setAlarm: () => alarms.push("set"),
        deleteAlarm: () => {
          alarms.push("delete");
          const report = duringDelete;
          duringDelete = null;
          report?.();
        },
      },
      async ({ runtime, events }) => {
        duringDelete = () => {
          const [callId] = callsOf(events(), "spawn_session");
          const report = { callId: callId!, childId: `child-of-${callId}`, status: "completed" as const, result: "7" };
          void runtime.childReport(report);
        };
        await runtime.postMessage({ text: "delegate", source: "http" });
        await runtime.alarm();
        const [callId] = callsOf(events(), "spawn_session");
        expect(responsesTo(events(), callId!)).toEqual([expect.objectContaining({ status: "ok" })]);
        // The report came during the slice's final deleteAlarm; an alarm must follow it.
        expect(alarms.lastIndexOf("set")).toBeGreaterThan(alarms.lastIndexOf("delete"));
      },
    );
  });
});

describe("at most 32 children that have not reported", () => {
  it("a 33rd spawn answers too_many_children (dispatched, nothing created); the 32 others wait", async () => {
    const N = 34;
    let n = 0;
    const provider: ModelProvider = {
      name: "openai",
      async *stream(): AsyncGenerator<ModelPart> {
        if (n++ === 0)
          for (let i = 0; i < N; i++)
            yield { type: "tool-call", callId: `p${i}`, name: "spawn_session", args: { goal: `part ${i}` } };
        else yield { type: "text-delta", text: "ok" };
        yield { type: "usage", inputTokens: 10, outputTokens: 10 };
        yield { type: "finish", reason: n === 1 ? "tool-calls" : "stop" };
      },
    };
    const { port, seen } = fakePort();
    await withSession({ provider, model: MODEL, children: port, directoryId: "dir" }, async ({ runtime, events }) => {
      await runtime.postMessage({ text: "split it", source: "http" });
      for (let i = 0; events().filter((e) => e.actions?.toolDispatch).length < N; i++) {
        if (i > 20) throw new Error("the spawns were not all dispatched");
        await runtime.alarm();
      }
      const calls = callsOf(events(), "spawn_session");
      expect(calls).toHaveLength(N);
      const refused = calls.filter((c) => responsesTo(events(), c).length > 0);
      expect(refused).toEqual(calls.slice(32));
      for (const c of refused)
        expect(responsesTo(events(), c)).toEqual([
          expect.objectContaining({
            status: "error",
            response: expect.objectContaining({ code: "too_many_children" }),
          }),
        ]);
      expect(seen.spawns.map((s) => s.callId)).toEqual(calls.slice(0, 32));
      expect(runtime.summary?.children?.awaiting).toHaveLength(32);
      expect(runtime.session()).toMatchObject({ status: "waiting", wait: { kind: "child" } });
    });
  });
});

describe("a failed turn answers its spawn and stops its child", () => {
  it("a poison slice while a child works: interrupted, stopChildren, the child stopped; a not_found stop is no acknowledgement", async () => {
    const { port, seen, answerStops } = fakePort();
    await withSession(
      { provider: spawnsThenAnswer(), model: MODEL, children: port, directoryId: "dir" },
      async ({ runtime, events, state }) => {
        await runtime.postMessage({ text: "delegate", source: "http" });
        await runtime.alarm();
        const [callId] = callsOf(events(), "spawn_session");
        expect(runtime.session().status).toBe("waiting");

        // A message moves the parked turn; five slices died at this head: the next one closes it.
        answerStops({ ok: false, error: { code: "not_found", message: "session not found" } });
        await runtime.postMessage({ text: "and hurry", source: "http" });
        const head = runtime.summary!.highWater;
        for (let i = 0; i < runtime.policy.poisonSlices; i++) recordSliceStart(state.storage.sql, head);
        await runtime.alarm();

        const after = events().filter((e) => e.seq > head);
        expect(after.map((e) => e.content?.type ?? Object.keys(e.actions?.stateDelta ?? e.actions ?? {})[0])).toEqual([
          "error",
          "functionResponse",
          "stopChildren",
          "turnClose",
        ]);
        expect(responsesTo(events(), callId!)).toEqual([expect.objectContaining({ status: "interrupted" })]);
        expect(after[2]?.actions?.stateDelta?.stopChildren).toEqual({ callIds: [callId] });
        expect(after[3]?.actions?.turnClose).toEqual({ reason: "failed" });
        expect(runtime.session()).toMatchObject({ status: "failed", wait: null });

        // The stop was sent and answered not_found: not acknowledged, sent again.
        expect(seen.stops).toEqual([callId]);
        expect(events().some((e) => e.actions?.stateDelta?.childStopAcked)).toBe(false);
        expect(runtime.summary?.children?.stops).toEqual([callId]);
        answerStops({ ok: true, value: {} });
        await runtime.alarm();
        expect(seen.stops).toEqual([callId, callId]);
        expect(events().at(-1)?.actions?.stateDelta?.childStopAcked).toEqual({ callIds: [callId] });
        expect(runtime.summary?.children?.stops).toEqual([]);
      },
    );
  });
});
