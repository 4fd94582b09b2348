/**
 * spawn_session in the pure core (docs/API.md §3 recovery, §6, §7.31): the planner's "wait for
 * child" row, recovery treating a dispatched spawn as a wait, and the children projection
 * (waiting, the child's outbox, the parent's stops). Hand-written logs, no I/O.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import {
  buildRecoveryPlan,
  type CallState,
  childResult,
  liveChildren,
  MAX_OPEN_CHILDREN,
  recoveryNeeded,
  reduceSummary,
  type SessionSummary,
  toSession,
} from "../../../src/projections";
import type { SliceHead } from "../../../src/runtime/plan";
import { type LogBuilder, newLog } from "../../unit/support/fixtures";
import { plan, suffix } from "../../unit/support/plan";

const needsApproval = (_call: CallState) => false;

const spawnAnswer = (ev: LogBuilder, ...callIds: string[]) => {
  ev.user("delegate");
  ev.modelRequest();
  for (const id of callIds) ev.modelCall(id, "spawn_session", { goal: `goal ${id}` });
};

describe("planNextStep: spawn_session rows", () => {
  const rows: { found: string; log: (ev: LogBuilder) => void; head?: Partial<SliceHead>; step: unknown }[] = [
    {
      found: "a spawn not yet dispatched: dispatch it like any call",
      log: (ev) => spawnAnswer(ev, "c1"),
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c1", name: "spawn_session" }) },
    },
    {
      found: "a dispatched spawn with no response: wait for its child (no rerun, no model call)",
      log: (ev) => {
        spawnAnswer(ev, "c1");
        ev.dispatch("c1", "idempotent");
      },
      step: { kind: "wait_child", calls: [expect.objectContaining({ callId: "c1" })] },
    },
    {
      found: "the same after a restart with the spawn in flight: still a wait, not a recovery",
      log: (ev) => {
        spawnAnswer(ev, "c1");
        ev.dispatch("c1", "idempotent");
      },
      head: { inflight: { callId: "c1" } },
      step: { kind: "wait_child", calls: [expect.objectContaining({ callId: "c1" })] },
    },
    {
      found: "one spawn dispatched, the second not: all spawns of the answer go out before the wait",
      log: (ev) => {
        spawnAnswer(ev, "c1", "c2");
        ev.dispatch("c1", "idempotent");
      },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c2" }) },
    },
    {
      found: "a spawn waiting and a later read call: the read runs meanwhile",
      log: (ev) => {
        spawnAnswer(ev, "c1");
        ev.modelCall("c2", "read_file", { path: "a" });
        ev.dispatch("c1", "idempotent");
      },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c2" }) },
    },
    {
      found: "both spawns dispatched: one wait for both",
      log: (ev) => {
        spawnAnswer(ev, "c1", "c2");
        ev.dispatch("c1", "idempotent");
        ev.dispatch("c2", "idempotent");
      },
      step: {
        kind: "wait_child",
        calls: [expect.objectContaining({ callId: "c1" }), expect.objectContaining({ callId: "c2" })],
      },
    },
    {
      found: "one child reported, one still works: still waiting for the other",
      log: (ev) => {
        spawnAnswer(ev, "c1", "c2");
        ev.dispatch("c1", "idempotent");
        ev.dispatch("c2", "idempotent");
        ev.response("c1", "ok", { sessionId: "x", status: "completed", result: "done" });
      },
      step: { kind: "wait_child", calls: [expect.objectContaining({ callId: "c2" })] },
    },
    {
      found: "a wait_for before a spawn in one answer: the spawn is dispatched before the run waits",
      log: (ev) => {
        ev.user("delegate, then wait");
        ev.modelRequest();
        ev.modelCall("w1", "wait_for", { reason: "a human" });
        ev.modelCall("c1", "spawn_session", { goal: "goal c1" });
        ev.modelCall("c2", "spawn_session", { goal: "goal c2" });
      },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c1" }) },
    },
    {
      found: "the same with the first spawn out: the second goes next",
      log: (ev) => {
        ev.user("delegate, then wait");
        ev.modelRequest();
        ev.modelCall("w1", "wait_for", { reason: "a human" });
        ev.modelCall("c1", "spawn_session", { goal: "goal c1" });
        ev.modelCall("c2", "spawn_session", { goal: "goal c2" });
        ev.dispatch("c1", "idempotent");
      },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c2" }) },
    },
    {
      found: "every spawn of the answer out: now the wait begins",
      log: (ev) => {
        ev.user("delegate, then wait");
        ev.modelRequest();
        ev.modelCall("w1", "wait_for", { reason: "a human" });
        ev.modelCall("c1", "spawn_session", { goal: "goal c1" });
        ev.dispatch("c1", "idempotent");
      },
      step: { kind: "begin_wait", call: expect.objectContaining({ callId: "w1" }) },
    },
    {
      found: "every child reported: the model is called with the responses",
      log: (ev) => {
        spawnAnswer(ev, "c1");
        ev.dispatch("c1", "idempotent");
        ev.response("c1", "ok", { sessionId: "x", status: "completed", result: "done" });
      },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
  ];
  for (const row of rows)
    it(row.found, () => {
      expect(plan(row.log, row.head)).toEqual(row.step);
    });

  it("waiting for a child is not work: it never counts as a failed slice", async () => {
    const { isWork } = await import("../../../src/runtime/plan");
    expect(isWork({ kind: "wait_child", calls: [] })).toBe(false);
  });
});

describe("buildRecoveryPlan: a dispatched spawn is a wait (docs/API.md §3, §7.31)", () => {
  it("no rerun, no interrupted, no notice, even when the spawn was in flight", () => {
    const ev = newLog();
    spawnAnswer(ev, "c1", "c2");
    ev.dispatch("c1", "idempotent");
    ev.dispatch("c2", "idempotent");
    const events = suffix(ev.events);
    const p = buildRecoveryPlan(events, needsApproval, { callId: "c2" });
    expect(p).toMatchObject({ rerun: [], interrupted: [], waitingChild: ["c1", "c2"], reissue: null });
    expect(recoveryNeeded(p)).toBe(false);
  });

  it("an idempotent non-spawn call is still re-run", () => {
    const ev = newLog();
    ev.user("x");
    ev.modelRequest();
    ev.modelCall("c1", "http_fetch", { url: "https://a" });
    ev.dispatch("c1", "idempotent");
    const p = buildRecoveryPlan(suffix(ev.events), needsApproval);
    expect(p.rerun).toEqual(["c1"]);
    expect(p.waitingChild).toEqual([]);
  });
});

function fold(events: Event[]): SessionSummary {
  let s: SessionSummary | null = null;
  for (const e of events) s = reduceSummary(s, e);
  return s!;
}

describe("children projection", () => {
  it("a parent is waiting (kind child) from the spawn's dispatch until its response", () => {
    const ev = newLog();
    ev.created();
    spawnAnswer(ev, "c1");
    ev.dispatch("c1", "idempotent");
    const waiting = toSession(fold(ev.events), () => true);
    expect(waiting.status).toBe("waiting");
    expect(waiting.wait).toEqual({ runId: "r1", waitId: "child:c1", kind: "child" });
    // Also right after a restart (nobody owns the run yet): a wait is not a recovery.
    expect(toSession(fold(ev.events), () => false).status).toBe("waiting");
    ev.response("c1", "ok", { sessionId: "x", status: "completed", result: null });
    const after = toSession(fold(ev.events), () => true);
    expect(after).toMatchObject({ status: "running", wait: null });
  });

  it("a stop clears the wait and records the children to stop until each is acknowledged", () => {
    const ev = newLog();
    ev.created();
    spawnAnswer(ev, "c1", "c2");
    ev.dispatch("c1", "idempotent");
    ev.dispatch("c2", "idempotent");
    ev.stateDelta({ stopChildren: { callIds: ["c1", "c2"] } }, "runtime");
    ev.turnClose("stopped");
    let s = fold(ev.events);
    expect(toSession(s, () => true)).toMatchObject({ status: "idle", wait: null });
    expect(s.children?.stops).toEqual(["c1", "c2"]);
    ev.stateDelta({ childStopAcked: { callIds: ["c1"] } }, "runtime");
    s = fold(ev.events);
    expect(s.children?.stops).toEqual(["c2"]);
  });

  it("a child's goal turn close puts a report in its outbox until reportAcked; later turns report nothing", () => {
    const ev = newLog({ sessionId: "child" });
    const created = ev.created();
    (created.actions!.stateDelta!.session as Record<string, unknown>).spawnedBy = {
      sessionId: "parent",
      callId: "c9",
      depth: 1,
    };
    ev.user("the goal");
    ev.modelRequest();
    ev.modelText("first");
    ev.modelText("");
    ev.modelText("the answer");
    ev.turnClose("completed");
    let s = fold(ev.events);
    expect(s.children?.report).toEqual({ turnId: "t1", status: "completed" });
    expect(childResult(ev.events.filter((e) => e.turnId === "t1"))).toBe("the answer");
    ev.stateDelta({ reportAcked: { parentId: "parent", callId: "c9" } }, "runtime");
    s = fold(ev.events);
    expect(s.children).toMatchObject({ report: null, reported: true });
    ev.turn("t2", "r2");
    ev.user("more work");
    ev.turnClose("failed");
    expect(fold(ev.events).children?.report).toBeNull();
  });

  it("a child that wrote no text reports result null", () => {
    expect(childResult([])).toBeNull();
  });

  it("counts the children that have not reported: the open turn's waiting spawns and the stops not yet acknowledged", () => {
    const ev = newLog();
    ev.created();
    spawnAnswer(ev, "c1", "c2");
    ev.dispatch("c1", "idempotent");
    ev.dispatch("c2", "idempotent");
    expect(liveChildren(fold(ev.events).children)).toBe(2);
    // The spawn being created does not count itself (its dispatch is already in the log).
    expect(liveChildren(fold(ev.events).children, "c2")).toBe(1);
    ev.stateDelta({ stopChildren: { callIds: ["c1", "c2"] } }, "runtime");
    ev.turnClose("stopped");
    expect(liveChildren(fold(ev.events).children)).toBe(2);
    ev.stateDelta({ childStopAcked: { callIds: ["c1"] } }, "runtime");
    expect(liveChildren(fold(ev.events).children)).toBe(1);
    expect(MAX_OPEN_CHILDREN).toBe(32);
  });

  it("a root session has nothing to report", () => {
    const ev = newLog();
    ev.created();
    ev.user("x");
    ev.turnClose("completed");
    expect(fold(ev.events).children?.report).toBeNull();
  });
});
