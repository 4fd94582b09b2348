/** Waits and the step budget (docs/API.md §6, §7.27, §7.28): planner rows, the summary fold, recovery. */
import { describe, expect, it } from "vitest";
import { buildRecoveryPlan, reduceSummary, type SessionSummary, toSession } from "../../../src/projections";
import type { SliceHead } from "../../../src/runtime/plan";
import { resumeDrafts } from "../../../src/runtime/wait-drafts";
import { deepFreeze, type LogBuilder, newLog } from "../support/fixtures";
import { needsApproval, plan, suffix } from "../support/plan";

const BUDGET = (modelCalls: number, max = 5) => ({ modelCalls, max, nextWaitId: "budget:t1:1" });

/** A `wait_for` dispatch as the runtime writes it: T1 carrying `stateDelta.wait`. */
function waitDispatch(ev: LogBuilder, callId: string) {
  const e = ev.dispatch(callId, "idempotent");
  e.actions = { ...e.actions, stateDelta: { wait: { waitId: `wait:${callId}`, kind: "wait_for", reason: "a reply" } } };
  return e;
}

function oneToolStep(ev: LogBuilder, n: number) {
  ev.modelRequest();
  ev.modelCall(`c${n}`, "read_file", { path: "a" }, { stateDelta: { finishReason: "tool-calls" } });
  ev.dispatch(`c${n}`, "read");
  ev.response(`c${n}`, "ok");
}

describe("planNextStep: wait and budget rows", () => {
  const rows: { found: string; log: (ev: LogBuilder) => void; head?: Partial<SliceHead>; step: unknown }[] = [
    {
      found: "a wait_for call not yet dispatched",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "wait_for", { reason: "a reply" });
      },
      step: { kind: "begin_wait", call: expect.objectContaining({ callId: "c1", name: "wait_for" }) },
    },
    {
      found: "a dispatched wait_for with no response (the summary holds the wait)",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "wait_for", { reason: "a reply" });
        waitDispatch(ev, "c1");
      },
      head: { wait: { waitId: "wait:c1", kind: "wait_for" } },
      step: { kind: "wait" },
    },
    {
      found: "a wait and a message that arrived during it: still waiting",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "wait_for", { reason: "a reply" });
        waitDispatch(ev, "c1");
        ev.user("are you there?");
      },
      head: { wait: { waitId: "wait:c1", kind: "wait_for" } },
      step: { kind: "wait" },
    },
    {
      found: "a dispatched wait_for after a restart (no inflight, no takeover): a wait, not a recovery",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "wait_for", { reason: "a reply" });
        waitDispatch(ev, "c1");
      },
      head: { wait: { waitId: "wait:c1", kind: "wait_for" }, inflight: null },
      step: { kind: "wait" },
    },
    {
      found: "the wait_for answered by a resume: call the model",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "wait_for", { reason: "a reply" });
        waitDispatch(ev, "c1");
        ev.response("c1", "ok", { text: "go on" });
      },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "budget 5, 4 calls made, tools run: the 5th call is made",
      log: (ev) => {
        ev.user("hi");
        oneToolStep(ev, 1);
      },
      head: { budget: BUDGET(4) },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "budget 5, 5 calls made, the 5th answer's tools run: the budget wait",
      log: (ev) => {
        ev.user("hi");
        oneToolStep(ev, 1);
      },
      head: { budget: BUDGET(5) },
      step: { kind: "budget_wait", waitId: "budget:t1:1", modelCalls: 5 },
    },
    {
      found: "budget 5, 5 calls made, the 5th answer's call not yet run: run it first",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file", { path: "a" });
      },
      head: { budget: BUDGET(5) },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c1" }) },
    },
    {
      found: "budget 5, 5 calls made, the 5th answered without calls: the turn completes",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("done", { stateDelta: { finishReason: "stop" } });
      },
      head: { budget: BUDGET(5) },
      step: { kind: "close", reason: "completed" },
    },
    {
      found: "budget 5, 5 calls made, the 5th cut at length: a continuation is a call, so the budget waits",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("half", { stateDelta: { finishReason: "length" } });
      },
      head: { budget: BUDGET(5), lengthStreak: 1 },
      step: { kind: "budget_wait", waitId: "budget:t1:1", modelCalls: 5 },
    },
    {
      found: "budget 5, 5 calls made, the 5th request failed and its retry is due: a retry is not a call",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        const inv = ev.events.at(-1)!.invocationId!;
        ev.stateDelta(
          { modelAttempt: { invocationId: inv, attempt: 1, code: "http_503", message: "x", retryAt: 1 } },
          "runtime",
        );
      },
      head: { budget: BUDGET(5) },
      step: { kind: "model", call: expect.objectContaining({ kind: "retry", attempt: 2 }) },
    },
    {
      found: "a budget wait recorded: waiting, also with a message after it",
      log: (ev) => {
        ev.user("hi");
        oneToolStep(ev, 1);
        ev.stateDelta({ budgetWait: { waitId: "budget:t1:1", modelCalls: 5 } }, "runtime");
        ev.user("more");
      },
      head: { budget: BUDGET(5), wait: { waitId: "budget:t1:1", kind: "budget" } },
      step: { kind: "wait" },
    },
  ];
  for (const row of rows)
    it(row.found, () => {
      expect(plan(row.log, row.head)).toEqual(row.step);
    });
});

describe("buildRecoveryPlan: a dispatched wait is pending, not a recovery case", () => {
  it("no rerun, no notice for a dispatched wait_for with no response", () => {
    const ev = newLog();
    ev.user("hi");
    ev.modelRequest();
    ev.modelCall("c1", "wait_for", { reason: "a reply" });
    waitDispatch(ev, "c1");
    const p = buildRecoveryPlan(deepFreeze(suffix(ev.events)), needsApproval);
    expect(p).toMatchObject({ rerun: [], interrupted: [], reissue: null, runNormally: [] });
  });
});

function summaryOf(log: (ev: LogBuilder) => void, options: Record<string, unknown> = {}): SessionSummary {
  const ev = newLog();
  ev.created({ options });
  log(ev);
  let s: SessionSummary | null = null;
  for (const e of ev.events) s = reduceSummary(s, e);
  return s!;
}

describe("the summary's wait and budget (docs/API.md §7.27, §7.28)", () => {
  it("counts one call per invocation: retries and re-issues of it do not count, compactions do not count", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      oneToolStep(ev, 1);
      const again = ev.events.find((e) => e.actions?.modelRequest)!;
      ev.events.push({ ...again, seq: ev.events.length + 1 }); // the same invocation re-issued
      oneToolStep(ev, 2);
      const compaction = ev.modelRequest();
      compaction.actions!.modelRequest = { ...compaction.actions!.modelRequest!, purpose: "compaction" } as never;
      oneToolStep(ev, 3);
    });
    expect(s.openTurn).toMatchObject({ modelCalls: 3, maxModelCalls: 1000 });
  });

  it("a budget wait shows as Session.wait with status waiting; its resume clears it and restarts the count", () => {
    const waiting = summaryOf(
      (ev) => {
        ev.user("hi");
        oneToolStep(ev, 1);
        oneToolStep(ev, 2);
        ev.stateDelta({ budgetWait: { waitId: "budget:t1:1", modelCalls: 2 } }, "runtime");
      },
      { maxModelCallsPerTurn: 2 },
    );
    const session = toSession(waiting, () => true);
    expect(session).toMatchObject({
      status: "waiting",
      openTurn: true,
      maxModelCallsPerTurn: 2,
      wait: { runId: "r1", waitId: "budget:t1:1", kind: "budget", modelCalls: 2 },
    });
    const resumed = summaryOf(
      (ev) => {
        ev.user("hi");
        oneToolStep(ev, 1);
        ev.stateDelta({ budgetWait: { waitId: "budget:t1:1", modelCalls: 1 } }, "runtime");
        ev.stateDelta({ budgetResume: { waitId: "budget:t1:1" } });
      },
      { maxModelCallsPerTurn: 1 },
    );
    expect(resumed.openTurn).toMatchObject({ wait: null, modelCalls: 0, budgetWaits: 1 });
    expect(toSession(resumed, () => true)).toMatchObject({ status: "running", wait: null });
  });

  it("a wait_for dispatch is the wait (with its reason); its response ends it", () => {
    const log = (ev: LogBuilder) => {
      ev.user("hi");
      ev.modelRequest();
      ev.modelCall("c1", "wait_for", { reason: "a reply" });
      waitDispatch(ev, "c1");
    };
    expect(toSession(summaryOf(log), () => false)).toMatchObject({
      status: "waiting",
      wait: { runId: "r1", waitId: "wait:c1", kind: "wait_for", reason: "a reply" },
    });
    const answered = summaryOf((ev) => {
      log(ev);
      ev.response("c1", "ok", { text: "go" });
    });
    expect(toSession(answered, () => true)).toMatchObject({ status: "running", wait: null });
  });

  it("PATCH maxModelCallsPerTurn changes the next turn's budget, not the open one's", () => {
    const s = summaryOf(
      (ev) => {
        ev.user("hi");
        ev.stateDelta({ maxModelCallsPerTurn: 7 });
      },
      { maxModelCallsPerTurn: 3 },
    );
    expect(s.openTurn?.maxModelCalls).toBe(3);
    expect(toSession(s, () => true).maxModelCallsPerTurn).toBe(7);
  });
});

describe("resumeDrafts", () => {
  const base = { turnId: "t1", runId: "r1" };
  it("a wait_for resume is the call's ok response { text }", () => {
    const drafts = resumeDrafts(
      { runId: "r1", waitId: "wait:c1", kind: "wait_for", callId: "c1", invocationId: "inv1" },
      base,
      "here it is",
    );
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({
      author: "tool",
      invocationId: "inv1",
      content: {
        type: "functionResponse",
        callId: "c1",
        name: "wait_for",
        status: "ok",
        response: { text: "here it is" },
      },
    });
  });
  it("a budget resume: budgetResume, and the text as a user event with source resume only when non-empty", () => {
    const wait = { runId: "r1", waitId: "budget:t1:1", kind: "budget" as const, modelCalls: 5 };
    expect(resumeDrafts(wait, base, "")).toEqual([
      expect.objectContaining({
        modelVisibility: "hidden",
        actions: { stateDelta: { budgetResume: { waitId: "budget:t1:1" } } },
      }),
    ]);
    expect(resumeDrafts(wait, base, "keep going")[1]).toMatchObject({
      author: "user",
      source: "resume",
      modelVisibility: "visible",
      content: { type: "text", text: "keep going" },
    });
  });
});
