/**
 * Waits and the step budget on a real session object's SQLite (docs/API.md §6, §7.27, §7.28): a
 * `wait_for` and a spent budget pause the turn with no alarm held, only the current `waitId`
 * releases it, a message or a restart does not, a stop ends it. Slices are driven by hand.
 */
import { describe, expect, it } from "vitest";
import { turnOfRun } from "../../src/features/work/cache";
import type { Event } from "../../src/log";
import type { ModelConfig } from "../../src/model/types";
import type { SessionRuntime } from "../../src/runtime";
import { type Harness, lastResults, type Step, scriptedProvider, withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** The object's one alarm, as the runtime arms and deletes it. */
function alarmClock() {
  const a = { at: null as number | null };
  return {
    a,
    setAlarm: (at: number) => {
      a.at = at;
    },
    deleteAlarm: () => {
      a.at = null;
    },
  };
}

/** Runs slices while an alarm is armed; answers when the runtime holds none (closed or waiting). */
async function drive(rt: SessionRuntime, a: { at: number | null }, max = 200) {
  for (let i = 0; a.at !== null && i < max; i++) {
    a.at = null;
    await rt.alarm();
  }
  if (a.at !== null) throw new Error("the turn kept its alarm");
}

const expectConflict = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: "conflict" });
const count = (events: Event[], pred: (e: Event) => boolean) => events.filter(pred).length;
/** docs/API.md §7.28: a model call is one turn request; a compaction's own requests are not (§7.29). */
const modelCalls = (events: Event[]) =>
  count(events, (e) => !!e.actions?.modelRequest && e.actions.modelRequest.purpose !== "compaction");

async function resume(h: Harness, rt: SessionRuntime, input: { runId?: string; waitId: string; text?: string }) {
  const s = rt.session();
  const runId = input.runId ?? s.wait?.runId ?? "";
  const turn = turnOfRun(h.state.storage.sql, runId);
  if (turn === undefined) throw new Error("unknown run");
  return rt.resume({ turnOfRun: turn, waitId: input.waitId, text: input.text ?? "" });
}

/** Calls wait_for first, then answers with what the wait answered. */
const waitScript = (r: Parameters<Parameters<typeof scriptedProvider>[0]["next"]>[0], n: number): Step =>
  n === 0
    ? { kind: "call", name: "wait_for", args: { reason: "the deploy to finish" } }
    : { kind: "answer", text: `got ${JSON.stringify(lastResults(r)[0]?.output ?? null)}` };

describe("wait_for", () => {
  it("waits with no alarm held; only the current waitId releases it and its text is the response", async () => {
    const clock = alarmClock();
    const provider = scriptedProvider({ next: waitScript });
    await withSession({ provider, model: MODEL, ...clock }, async (h) => {
      const { runtime: rt } = h;
      const sent = await rt.postMessage({ text: "deploy, then report", source: "http" });
      await drive(rt, clock.a);
      const s = rt.session();
      expect(s).toMatchObject({
        status: "waiting",
        openTurn: true,
        wait: { kind: "wait_for", reason: "the deploy to finish", waitId: expect.stringMatching(/^wait:call_/) },
      });
      expect(clock.a.at).toBeNull();
      const call = h.events().find((e) => e.content?.type === "functionCall")!;
      const dispatch = h.events().find((e) => e.actions?.toolDispatch)!;
      expect(dispatch.actions?.toolDispatch).toMatchObject({ tool: "wait_for", effect: "idempotent" });
      expect(s.wait!.waitId).toBe(`wait:${(call.content as { callId: string }).callId}`);

      // A message is accepted but does not release the wait; a slice it wakes finds the wait and ends.
      await rt.postMessage({ text: "any news?", source: "http" });
      await drive(rt, clock.a);
      expect(rt.session().status).toBe("waiting");
      expect(provider.recorded).toHaveLength(1);

      const hw = rt.session().highWater;
      for (const waitId of ["wait:call_nope", "budget:x:1", ""]) await expectConflict(resume(h, rt, { waitId }));
      expect(rt.session().highWater).toBe(hw);

      const { seq } = await resume(h, rt, { waitId: s.wait!.waitId, text: "deployed at 10:42" });
      const response = h.events().find((e) => e.seq === seq)!;
      expect(response.content).toMatchObject({
        type: "functionResponse",
        name: "wait_for",
        status: "ok",
        response: { text: "deployed at 10:42" },
      });
      expect(clock.a.at).not.toBeNull();
      await drive(rt, clock.a);
      const done = rt.session();
      expect(done).toMatchObject({ status: "idle", openTurn: false, wait: null });
      const answer = h.events().findLast((e) => e.author === "model")!;
      expect((answer.content as { text: string }).text).toContain("deployed at 10:42");
      // The message that arrived during the wait was read after it.
      const lastRequest = provider.recorded
        .at(-1)!
        .request.messages.map((m) => JSON.stringify(m))
        .join("\n");
      expect(lastRequest.indexOf("deployed at 10:42")).toBeLessThan(lastRequest.indexOf("any news?"));
      expect(sent.turnId).toBe(response.turnId);

      // A used waitId is 409 and appends nothing.
      const after = rt.session().highWater;
      await expectConflict(resume(h, rt, { runId: response.runId!, waitId: s.wait!.waitId }));
      expect(rt.session().highWater).toBe(after);
    });
  });

  it("a restart keeps the wait (no recovery, no notice, no alarm); a resume after it completes the turn", async () => {
    const clock = alarmClock();
    const provider = scriptedProvider({ next: waitScript });
    await withSession({ provider, model: MODEL, ...clock }, async (h) => {
      await h.runtime.postMessage({ text: "deploy", source: "http" });
      await drive(h.runtime, clock.a);
      const before = h.runtime.session();
      const rt = h.reopen();
      await rt.ensureAlarm(async () => null);
      expect(clock.a.at).toBeNull();
      expect(rt.session()).toMatchObject({ status: "waiting", wait: before.wait, recoveryNotice: null });
      await rt.alarm();
      expect(rt.session().highWater).toBe(before.highWater);
      await resume(h, rt, { waitId: before.wait!.waitId, text: "ok" });
      await drive(rt, clock.a);
      expect(rt.session()).toMatchObject({ status: "idle", openTurn: false });
      expect(count(h.events(), (e) => !!e.actions?.stateDelta?.runStarted || !!e.actions?.toolRecovery)).toBe(0);
    });
  });

  it("docs/API.md §7.12: an earlier run of the same turn with the current waitId resumes; another turn's run is 409", async () => {
    const clock = alarmClock();
    // Every turn waits once: a request ending with the user's message gets a wait_for.
    const perTurn = (r: Parameters<typeof waitScript>[0]): Step =>
      r.messages.at(-1)?.role === "user" ? waitScript(r, 0) : waitScript(r, 1);
    await withSession({ provider: scriptedProvider({ next: perTurn }), model: MODEL, ...clock }, async (h) => {
      const { runtime: rt } = h;
      await rt.postMessage({ text: "first", source: "http" });
      await drive(rt, clock.a);
      await resume(h, rt, { waitId: rt.session().wait!.waitId, text: "one" });
      await drive(rt, clock.a);
      const oldTurnRun = h.events().at(-1)!.runId!;
      const { turnId } = await rt.postMessage({ text: "second", source: "http" });
      await drive(rt, clock.a);
      const wait = rt.session().wait!;
      // A takeover during the turn started a new run; the wait's run is now an earlier run of it.
      rt.commit([
        {
          author: "runtime",
          modelVisibility: "hidden",
          turnId,
          runId: "run-after-takeover",
          actions: { stateDelta: { runStarted: { runId: "run-after-takeover", cause: "recovery" } } },
        },
      ]);
      expect(rt.summary?.openTurn?.runId).toBe("run-after-takeover");
      await expectConflict(resume(h, rt, { runId: oldTurnRun, waitId: wait.waitId }));
      await resume(h, rt, { runId: wait.runId, waitId: wait.waitId, text: "two" });
      await drive(rt, clock.a);
      expect(rt.session()).toMatchObject({ status: "idle", openTurn: false });
      expect(h.events().at(-1)).toMatchObject({
        runId: "run-after-takeover",
        actions: { turnClose: { reason: "completed" } },
      });
    });
  });

  it("a stop ends a waiting turn: the wait_for is answered interrupted and the turn closes stopped", async () => {
    const clock = alarmClock();
    await withSession({ provider: scriptedProvider({ next: waitScript }), model: MODEL, ...clock }, async (h) => {
      await h.runtime.postMessage({ text: "deploy", source: "http" });
      await drive(h.runtime, clock.a);
      const waitId = h.runtime.session().wait!.waitId;
      expect(h.runtime.stop()).toMatchObject({ status: "idle", openTurn: false, wait: null });
      const events = h.events();
      expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "stopped" });
      expect(events.at(-2)?.content).toMatchObject({
        type: "functionResponse",
        name: "wait_for",
        status: "interrupted",
      });
      await expectConflict(resume(h, h.runtime, { runId: events.at(-1)!.runId!, waitId }));
    });
  });
});

/** read_file forever until call `total`, which answers. */
const readsUntil =
  (total: number) =>
  (_r: unknown, n: number): Step =>
    n + 1 >= total
      ? { kind: "answer", text: "all read" }
      : { kind: "call", name: "read_file", args: { path: "a.txt" } };

describe("the step budget", () => {
  it("a budget of 5 pauses at the 5th call with budgetWait; a stale id is 409; a resume continues to completion", async () => {
    const clock = alarmClock();
    const provider = scriptedProvider({ next: readsUntil(8) });
    await withSession({ provider, model: MODEL, ...clock, options: { maxModelCallsPerTurn: 5 } }, async (h) => {
      const { runtime: rt } = h;
      const { turnId } = await rt.postMessage({ text: "read a.txt eight times", source: "http" });
      await drive(rt, clock.a);
      const s = rt.session();
      expect(s).toMatchObject({
        status: "waiting",
        openTurn: true,
        maxModelCallsPerTurn: 5,
        wait: { kind: "budget", waitId: `budget:${turnId}:1`, modelCalls: 5 },
      });
      expect(clock.a.at).toBeNull();
      let events = h.events();
      expect(modelCalls(events)).toBe(5);
      const wait = events.at(-1)!;
      expect(wait).toMatchObject({
        modelVisibility: "hidden",
        actions: { stateDelta: { budgetWait: { waitId: `budget:${turnId}:1`, modelCalls: 5 } } },
      });
      // The 5th answer's tool call ran before the wait.
      expect(events.at(-2)?.content).toMatchObject({ type: "functionResponse", name: "read_file" });

      // A message does not release it.
      await rt.postMessage({ text: "hurry", source: "http" });
      await drive(rt, clock.a);
      expect(rt.session().status).toBe("waiting");
      expect(modelCalls(h.events())).toBe(5);
      const hw = rt.session().highWater;
      await expectConflict(resume(h, rt, { waitId: `budget:${turnId}:2` }));
      expect(rt.session().highWater).toBe(hw);

      await resume(h, rt, { waitId: `budget:${turnId}:1`, text: "carry on" });
      await drive(rt, clock.a);
      expect(rt.session()).toMatchObject({ status: "idle", openTurn: false, wait: null });
      events = h.events();
      expect(modelCalls(events)).toBe(8);
      expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
      expect(events.find((e) => e.actions?.stateDelta?.budgetResume)?.actions?.stateDelta?.budgetResume).toEqual({
        waitId: `budget:${turnId}:1`,
      });
      expect(events.find((e) => e.source === "resume")).toMatchObject({
        author: "user",
        content: { type: "text", text: "carry on" },
      });
      await expectConflict(resume(h, rt, { runId: events.at(-1)!.runId!, waitId: `budget:${turnId}:1` }));
    });
  });

  it("a budget wait survives a restart, and a stop ends the waiting turn", async () => {
    const clock = alarmClock();
    await withSession(
      {
        provider: scriptedProvider({ next: readsUntil(4) }),
        model: MODEL,
        ...clock,
        options: { maxModelCallsPerTurn: 2 },
      },
      async (h) => {
        await h.runtime.postMessage({ text: "read", source: "http" });
        await drive(h.runtime, clock.a);
        const rt = h.reopen();
        await rt.ensureAlarm(async () => null);
        expect(clock.a.at).toBeNull();
        expect(rt.session()).toMatchObject({ status: "waiting", wait: { kind: "budget", modelCalls: 2 } });
        expect(rt.stop()).toMatchObject({ status: "idle", openTurn: false, wait: null });
        expect(h.events().at(-1)?.actions?.turnClose).toEqual({ reason: "stopped" });
      },
    );
  });

  it("the default budget lets a 400-call task finish in one turn, compacting on the way", async () => {
    const clock = alarmClock();
    const small: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 8000, maxOutputTokens: 1000 };
    const provider = scriptedProvider({ next: readsUntil(400) });
    await withSession({ provider, model: small, ...clock }, async (h) => {
      await h.runtime.postMessage({ text: "read a.txt 400 times", source: "http" });
      await drive(h.runtime, clock.a, 1000);
      const events = h.events();
      expect(h.runtime.session()).toMatchObject({ status: "idle", openTurn: false, maxModelCallsPerTurn: 1000 });
      expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
      expect(modelCalls(events)).toBe(400);
      expect(count(events, (e) => !!e.actions?.stateDelta?.budgetWait)).toBe(0);
      expect(count(events, (e) => !!e.actions?.stateDelta?.checkpoint)).toBeGreaterThan(0);
    });
  }, 120_000);

  it("issue 14: a 2,000-call task with a 1,000-call budget pauses once, is resumed once, and completes", async () => {
    const clock = alarmClock();
    const small: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 8000, maxOutputTokens: 1000 };
    const provider = scriptedProvider({ next: readsUntil(2000) });
    await withSession({ provider, model: small, ...clock }, async (h) => {
      const started = Date.now();
      const { turnId } = await h.runtime.postMessage({ text: "read a.txt 2000 times", source: "http" });
      await drive(h.runtime, clock.a, 5000);
      expect(h.runtime.session().wait).toMatchObject({ waitId: `budget:${turnId}:1`, modelCalls: 1000 });
      await resume(h, h.runtime, { waitId: `budget:${turnId}:1` });
      await drive(h.runtime, clock.a, 5000);
      const events = h.events();
      expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
      expect(modelCalls(events)).toBe(2000);
      expect(count(events, (e) => !!e.actions?.stateDelta?.budgetWait)).toBe(1);
      expect(count(events, (e) => !!e.actions?.stateDelta?.budgetResume)).toBe(1);
      const turns = provider.recorded.filter((r) => r.kind === "turn");
      const biggest = Math.max(...turns.map((r) => r.tokens));
      console.log(
        `2000 calls: ${Date.now() - started} ms, ${events.length} events, ` +
          `${count(events, (e) => !!e.actions?.stateDelta?.checkpoint)} checkpoints, largest request ~${biggest} tokens`,
      );
    });
  }, 300_000);
});
