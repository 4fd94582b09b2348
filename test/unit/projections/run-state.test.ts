import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import {
  buildRecoveryPlan,
  type CallState,
  decideNextStep,
  foldRunState,
  projectRunState,
  type RecoveryPlan,
} from "../../../src/projections";
import { deepFreeze, type LogBuilder, newLog } from "../support/fixtures";

/** The session's approval rule in these tests: every delete_file call waits for a human. */
const needsApproval = (call: CallState) => call.name === "delete_file";

const NOTHING: RecoveryPlan = {
  closed: false,
  reissueModel: false,
  reissue: null,
  rerun: [],
  interrupted: [],
  runNormally: [],
  waitingApproval: [],
  waitingInput: [],
  waitingChild: [],
  poisoned: null,
};

/** A turn whose model asked for one call: user message, model request, the call. */
function oneCall(ev: LogBuilder, name: string, args: unknown = { path: "a.txt" }) {
  ev.user("do it");
  ev.modelRequest();
  ev.modelCall("c1", name, args);
}

describe("buildRecoveryPlan: one row per state found in the log (docs/design.md §5)", () => {
  const rows: { found: string; log: (ev: LogBuilder) => void; plan: Partial<RecoveryPlan> }[] = [
    {
      found: "model request with no answer",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      plan: { reissueModel: true, reissue: { invocationId: "inv1", attempt: 1 } },
    },
    {
      found: "model request with no answer, after earlier steps were answered",
      log: (ev) => {
        oneCall(ev, "read_file");
        ev.dispatch("c1", "read");
        ev.response("c1", "ok");
        ev.modelRequest();
      },
      plan: { reissueModel: true, reissue: { invocationId: "inv2", attempt: 1 } },
    },
    {
      found: "read tool dispatched, no outcome",
      log: (ev) => {
        oneCall(ev, "read_file");
        ev.dispatch("c1", "read");
      },
      plan: { rerun: ["c1"] },
    },
    {
      // docs/API.md §7.31: a dispatched spawn is a wait for its child, not a re-run.
      found: "spawn_session dispatched, no outcome",
      log: (ev) => {
        oneCall(ev, "spawn_session", { goal: "g" });
        ev.dispatch("c1", "idempotent");
      },
      plan: { waitingChild: ["c1"] },
    },
    {
      found: "write tool dispatched, no outcome",
      log: (ev) => {
        oneCall(ev, "write_file", { path: "a", content: "b" });
        ev.dispatch("c1", "write");
      },
      plan: { interrupted: ["c1"] },
    },
    {
      found: "call not yet dispatched",
      log: (ev) => oneCall(ev, "read_file"),
      plan: { runNormally: ["c1"] },
    },
    {
      found: "call needing approval, not yet requested",
      log: (ev) => oneCall(ev, "delete_file"),
      plan: { runNormally: ["c1"] },
    },
    {
      found: "approval pending",
      log: (ev) => {
        oneCall(ev, "delete_file");
        ev.permissionRequest("c1", "apr_1");
      },
      plan: { waitingApproval: ["c1"] },
    },
    {
      found: "approved, not dispatched",
      log: (ev) => {
        oneCall(ev, "delete_file");
        ev.permissionRequest("c1", "apr_1");
        ev.permissionDecision("apr_1", "approve");
      },
      plan: { runNormally: ["c1"] },
    },
    {
      found: "approved, dispatched (write), no outcome",
      log: (ev) => {
        oneCall(ev, "delete_file");
        ev.permissionRequest("c1", "apr_1");
        ev.permissionDecision("apr_1", "approve");
        ev.dispatch("c1", "write");
      },
      plan: { interrupted: ["c1"] },
    },
    {
      found: "turn stopped",
      log: (ev) => {
        oneCall(ev, "write_file");
        ev.dispatch("c1", "write");
        ev.response("c1", "interrupted");
        ev.turnClose("stopped");
      },
      plan: { closed: true },
    },
    {
      found: "turn stopped with a model request unanswered",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.turnClose("stopped");
      },
      plan: { closed: true },
    },
    {
      found: "turn completed",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hello", { endInvocation: true });
        ev.turnClose("completed");
      },
      plan: { closed: true },
    },
    {
      found: "turn failed",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.error("provider_error", "boom");
        ev.turnClose("failed");
      },
      plan: { closed: true },
    },
    {
      found: "all calls answered",
      log: (ev) => {
        oneCall(ev, "read_file");
        ev.modelCall("c2", "write_file", { path: "b", content: "x" });
        ev.dispatch("c1", "read");
        ev.response("c1", "ok");
        ev.dispatch("c2", "write");
        ev.response("c2", "error");
      },
      plan: {},
    },
    {
      found: "several calls in several states, in call order",
      log: (ev) => {
        ev.user("many");
        ev.modelRequest();
        ev.modelCall("c1", "read_file", {});
        ev.modelCall("c2", "write_file", {});
        ev.modelCall("c3", "read_file", {});
        ev.modelCall("c4", "edit_file", {});
        ev.dispatch("c1", "read");
        ev.response("c1", "ok");
        ev.dispatch("c2", "write");
      },
      plan: { interrupted: ["c2"], runNormally: ["c3", "c4"] },
    },
  ];

  it.each(rows)("$found", ({ log, plan }) => {
    const ev = newLog();
    log(ev);
    expect(buildRecoveryPlan(ev.events, needsApproval)).toEqual({ ...NOTHING, ...plan });
  });

  it("is pure: the same events twice give deep-equal plans and the (frozen) input is untouched", () => {
    for (const { log } of rows) {
      const ev = newLog();
      log(ev);
      const before = structuredClone(ev.events);
      const events = deepFreeze(ev.events);
      const first = buildRecoveryPlan(events, needsApproval);
      const second = buildRecoveryPlan(events, needsApproval);
      expect(second).toEqual(first);
      expect(second).not.toBe(first);
      expect(events).toEqual(before);
    }
  });

  it("a later model request starts over: calls of an earlier, answered step are not recovered", () => {
    const ev = newLog();
    oneCall(ev, "write_file");
    ev.dispatch("c1", "write");
    ev.response("c1", "ok");
    ev.modelRequest();
    ev.modelCall("c2", "read_file", {});
    ev.dispatch("c2", "read");
    expect(buildRecoveryPlan(ev.events, needsApproval)).toEqual({ ...NOTHING, rerun: ["c2"] });
  });
});

describe("decideNextStep", () => {
  const step = (events: Event[]) => decideNextStep(projectRunState(events), needsApproval);

  const rows: { when: string; log: (ev: LogBuilder) => void; kind: string; callId?: string; plan?: string }[] = [
    { when: "no open turn (no events)", log: () => {}, kind: "none" },
    {
      when: "no model request yet",
      log: (ev) => ev.user("hi"),
      kind: "model",
    },
    {
      when: "model request with no answer yet",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      kind: "model",
    },
    {
      when: "answer with calls, all answered",
      log: (ev) => {
        oneCall(ev, "read_file");
        ev.dispatch("c1", "read");
        ev.response("c1", "ok");
      },
      kind: "model",
    },
    {
      when: "answer with no calls, no later user input",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hello", { endInvocation: true });
      },
      kind: "complete",
    },
    {
      when: "answer with no calls, but a user message arrived after the last model request",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hello", { endInvocation: true });
        ev.user("one more thing");
      },
      kind: "model",
    },
    {
      when: "a user message arrived while the model was answering (between request and answer)",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.user("also this");
        ev.modelText("hello", { endInvocation: true });
      },
      kind: "model",
    },
    {
      when: "user input before the request does not count as later input",
      log: (ev) => {
        ev.user("hi");
        ev.user("and this");
        ev.modelRequest();
        ev.modelText("hello", { endInvocation: true });
      },
      kind: "complete",
    },
    {
      when: "an undispatched call",
      log: (ev) => oneCall(ev, "read_file"),
      kind: "call",
      callId: "c1",
      plan: "dispatch",
    },
    {
      when: "a dispatched read with no outcome",
      log: (ev) => {
        oneCall(ev, "read_file");
        ev.dispatch("c1", "read");
      },
      kind: "call",
      callId: "c1",
      plan: "rerun",
    },
    {
      when: "a dispatched write with no outcome",
      log: (ev) => {
        oneCall(ev, "write_file");
        ev.dispatch("c1", "write");
      },
      kind: "call",
      callId: "c1",
      plan: "interrupted",
    },
    {
      when: "an approval rejected but not yet answered",
      log: (ev) => {
        oneCall(ev, "delete_file");
        ev.permissionRequest("c1", "apr_1");
        ev.permissionDecision("apr_1", "reject");
      },
      kind: "call",
      callId: "c1",
      plan: "reject",
    },
    {
      when: "the turn is closed",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.turnClose("stopped");
      },
      kind: "none",
    },
  ];

  it.each(rows)("$when → $kind $plan", ({ log, kind, callId, plan }) => {
    const ev = newLog();
    log(ev);
    const next = step(ev.events);
    expect(next.kind).toBe(kind);
    if (next.kind === "call") {
      expect(next.plan.call.callId).toBe(callId);
      expect(next.plan.kind).toBe(plan);
    }
  });

  it("calls run in order: the first unanswered call needing approval blocks the ones after it", () => {
    const ev = newLog();
    ev.user("clean up");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "delete_file", { path: "b" });
    ev.modelCall("c3", "read_file", { path: "c" });
    ev.dispatch("c1", "read");
    ev.response("c1", "ok");

    // c2 needs approval: request it, do not dispatch c3 first.
    let next = step(ev.events);
    expect(next).toMatchObject({ kind: "call", plan: { kind: "request_approval", call: { callId: "c2" } } });

    // While the approval is pending, the step is to wait on c2 — still not c3.
    ev.permissionRequest("c2", "apr_2");
    next = step(ev.events);
    expect(next).toMatchObject({ kind: "call", plan: { kind: "wait_approval", call: { callId: "c2" } } });

    // Approved: c2 is dispatched next, and only after its outcome does c3 run.
    ev.permissionDecision("apr_2", "approve");
    next = step(ev.events);
    expect(next).toMatchObject({ kind: "call", plan: { kind: "dispatch", call: { callId: "c2" } } });
    ev.dispatch("c2", "write");
    ev.response("c2", "ok");
    next = step(ev.events);
    expect(next).toMatchObject({ kind: "call", plan: { kind: "dispatch", call: { callId: "c3" } } });
  });
});

describe("foldRunState: the loop's kept run state (docs/design.md §4)", () => {
  /** A turn that goes through most of what the run state records. */
  function busyTurn(ev: LogBuilder) {
    ev.user("go");
    ev.compactionRequest("cmp1");
    ev.stateDelta(
      { modelAttempt: { invocationId: "cmp1", attempt: 1, code: "overloaded", message: "m", retryAt: 5 } },
      "runtime",
    );
    ev.stateDelta({ checkpoint: { id: "cp1" } }, "runtime");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "delete_file", { path: "b" });
    ev.modelCall("c3", "write_file", { path: "c" });
    ev.dispatch("c1", "read");
    ev.response("c1", "ok");
    ev.permissionRequest("c2");
    ev.stateDelta({ runStarted: { runId: "r2" } }, "runtime");
    ev.permissionDecision("apr_c2", "approve");
    ev.dispatch("c2", "write");
    ev.response("c2", "ok");
    ev.dispatch("c3", "write");
    ev.modelRequest();
    ev.modelText("done");
    ev.turnClose("completed");
  }

  it("folding the events one by one gives what projecting them whole gives, at every point", () => {
    const ev = newLog();
    busyTurn(ev);
    let state = projectRunState([]);
    for (let i = 0; i < ev.events.length; i++) {
      state = foldRunState(state, [ev.events[i]!]);
      expect(state).toEqual(projectRunState(ev.events.slice(0, i + 1)));
    }
  });

  it("leaves the state it folds from, and every call in it, as it was", () => {
    const ev = newLog();
    busyTurn(ev);
    for (let cut = 1; cut < ev.events.length; cut++) {
      const prior = projectRunState(ev.events.slice(0, cut));
      const before = structuredClone(prior);
      deepFreeze(prior);
      // A frozen prior throws if the fold writes into it.
      const next = foldRunState(prior, ev.events.slice(cut));
      expect(prior).toEqual(before);
      expect(next).toEqual(projectRunState(ev.events));
    }
  });

  it("an answered call read before the response still reads unanswered, the fold's copy answered", () => {
    const ev = newLog();
    oneCall(ev, "read_file");
    ev.dispatch("c1", "read");
    const before = projectRunState(ev.events);
    const call = before.calls[0]!;
    ev.response("c1", "ok");
    const after = foldRunState(before, ev.events.slice(-1));
    expect(call.answered).toBe(false);
    expect(after.calls[0]?.answered).toBe(true);
    expect(decideNextStep(after, needsApproval)).toEqual({ kind: "model" });
  });
});
