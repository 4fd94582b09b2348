/** planNextStep, table-tested with hand-written logs (docs/design.md §2 "Decide, then do"). */
import { describe, expect, it } from "vitest";
import { projectRunState } from "../../../src/projections";
import { planNextStep, type SliceHead } from "../../../src/runtime/plan";
import { type LogBuilder, newLog } from "../support/fixtures";
import { HEAD, NOW, POLICY, plan, suffix } from "../support/plan";

const attempt = (ev: LogBuilder, n: number, retryAt: number, code = "http_503") => {
  const inv = ev.events.findLast((e) => e.actions?.modelRequest)!.invocationId!;
  return ev.stateDelta({ modelAttempt: { invocationId: inv, attempt: n, code, message: "x", retryAt } }, "runtime");
};
/** A turn whose answer was cut at `length`, then the continuation's compaction call under way. */
const compacting = (ev: LogBuilder) => {
  ev.user("hi");
  ev.modelRequest();
  ev.modelText("hel", { stateDelta: { finishReason: "length" } });
  ev.compactionRequest("cmp1");
};
const runStarted = (ev: LogBuilder) => ev.stateDelta({ runStarted: { runId: "r2", cause: "recovery" } }, "runtime");

/** The open turn's suffix from its last model request, as the driver reads it. */

describe("planNextStep: one row per state of the open turn", () => {
  const rows: { found: string; log: (ev: LogBuilder) => void; head?: Partial<SliceHead>; step: unknown }[] = [
    {
      found: "a user message, nothing else",
      log: (ev) => ev.user("hi"),
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "a model request with no answer and no attempt: lost with the last incarnation",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      step: {
        kind: "recover",
        plan: expect.objectContaining({ reissue: { invocationId: "inv1", attempt: 1 }, rerun: [], interrupted: [] }),
      },
    },
    {
      found: "a failed attempt whose retryAt is still ahead",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        attempt(ev, 1, NOW + 2000);
      },
      step: { kind: "retry_wait", at: NOW + 2000 },
    },
    {
      found: "a failed attempt whose retryAt has come",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        attempt(ev, 1, NOW - 1);
      },
      step: { kind: "model", call: expect.objectContaining({ kind: "retry", invocationId: "inv1", attempt: 2 }) },
    },
    {
      found: "the retry was under way when the slice died (inflight names attempt 2)",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        attempt(ev, 1, NOW - 1);
      },
      head: { inflight: { invocationId: "inv1", attempt: 2 } },
      step: { kind: "recover", plan: expect.objectContaining({ reissue: { invocationId: "inv1", attempt: 2 } }) },
    },
    {
      found: "this incarnation's own slice died with attempt 1 under way: no restart, the call is sent again",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      head: { inflight: { invocationId: "inv1", attempt: 1, mine: true } },
      step: { kind: "model", call: expect.objectContaining({ kind: "retry", invocationId: "inv1", attempt: 1 }) },
    },
    {
      found: "this incarnation's own slice died with retry 2 under way: no restart",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        attempt(ev, 1, NOW - 1);
      },
      head: { inflight: { invocationId: "inv1", attempt: 2, mine: true } },
      step: { kind: "model", call: expect.objectContaining({ kind: "retry", invocationId: "inv1", attempt: 2 }) },
    },
    {
      found: "a compaction call failed and its retry is ahead: the next call waits for the alarm",
      log: (ev) => {
        compacting(ev);
        ev.stateDelta(
          { modelAttempt: { invocationId: "cmp1", attempt: 1, code: "http_503", message: "x", retryAt: NOW + 1000 } },
          "runtime",
        );
      },
      step: { kind: "retry_wait", at: NOW + 1000 },
    },
    {
      found: "a compaction call failed and its retry is due: the next call compacts again (no second continue note)",
      log: (ev) => {
        compacting(ev);
        ev.stateDelta(
          { modelAttempt: { invocationId: "cmp1", attempt: 1, code: "http_503", message: "x", retryAt: NOW - 1 } },
          "runtime",
        );
      },
      head: { lengthStreak: 1 },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "a compaction request with no outcome, from an earlier incarnation: re-issued as a recovery",
      log: compacting,
      step: {
        kind: "recover",
        plan: expect.objectContaining({ reissue: { invocationId: "cmp1", attempt: 1 }, rerun: [], interrupted: [] }),
      },
    },
    {
      found: "a compaction request this incarnation's failed slice left: sent again, no recovery",
      log: compacting,
      head: { inflight: { invocationId: "cmp1", attempt: 1, mine: true } },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "an answer without calls that stopped",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hello", { stateDelta: { finishReason: "stop" } });
      },
      step: { kind: "close", reason: "completed" },
    },
    {
      found: "an answer without calls cut at length",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hel", { stateDelta: { finishReason: "length" } });
      },
      head: { lengthStreak: 1 },
      step: { kind: "model", call: { kind: "new", continuation: true } },
    },
    {
      found: "the 4th answer at length, marked truncated",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelText("hel", { stateDelta: { finishReason: "length", truncated: true } });
      },
      head: { lengthStreak: 4 },
      step: { kind: "close", reason: "completed" },
    },
    {
      found: "an answer at length, but input arrived after the request",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.user("more");
        ev.modelText("hel", { stateDelta: { finishReason: "length" } });
      },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "a call needing approval, not yet asked",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file", { path: "a" });
      },
      step: { kind: "request_approval", call: expect.objectContaining({ callId: "c1" }) },
    },
    {
      found: "a pending approval (also in a fresh incarnation)",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file", { path: "a" });
        ev.permissionRequest("c1");
      },
      step: { kind: "wait_approval" },
    },
    {
      found: "an approved call in a fresh incarnation: dispatched normally, no recovery",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file", { path: "a" });
        ev.permissionRequest("c1");
        ev.permissionDecision("apr_c1", "approve");
      },
      step: { kind: "dispatch", call: expect.objectContaining({ callId: "c1" }) },
    },
    {
      found: "a read dispatched with no outcome and no takeover since",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file");
        ev.dispatch("c1", "read");
      },
      step: { kind: "recover", plan: expect.objectContaining({ rerun: ["c1"], reissue: null }) },
    },
    {
      found: "the same read after the takeover recorded it: re-run, no second recovery",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file");
        ev.dispatch("c1", "read");
        runStarted(ev);
      },
      step: { kind: "rerun", call: expect.objectContaining({ callId: "c1" }) },
    },
    {
      found: "a read re-run by four takeovers that died with the run again: poisoned, the turn fails",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file");
        ev.dispatch("c1", "read");
        for (let i = 0; i < 4; i++) runStarted(ev);
      },
      head: { inflight: { callId: "c1" } },
      step: { kind: "fail", code: "internal", message: expect.stringContaining("c1") },
    },
    {
      found: "the same read after three takeovers: re-run once more under a new takeover",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file");
        ev.dispatch("c1", "read");
        for (let i = 0; i < 3; i++) runStarted(ev);
      },
      head: { inflight: { callId: "c1" } },
      step: { kind: "recover", plan: expect.objectContaining({ rerun: ["c1"] }) },
    },
    {
      found: "a write dispatched with no outcome",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "write_file");
        ev.dispatch("c1", "write");
      },
      step: { kind: "recover", plan: expect.objectContaining({ interrupted: ["c1"] }) },
    },
    {
      found: "five slices failed from this head",
      log: (ev) => ev.user("hi"),
      head: { failedSlices: 5 },
      step: { kind: "fail", code: "internal", message: expect.any(String) },
    },
    {
      found: "four slices failed: still tried",
      log: (ev) => ev.user("hi"),
      head: { failedSlices: 4 },
      step: { kind: "model", call: { kind: "new", continuation: false } },
    },
    {
      found: "past 8 minutes of the slice, a model call is due",
      log: (ev) => ev.user("hi"),
      head: { sliceElapsedMs: 8 * 60_000 },
      step: { kind: "yield" },
    },
    {
      found: "past 13 minutes of the slice, a tool is due",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "read_file");
      },
      head: { sliceElapsedMs: 13 * 60_000 },
      step: { kind: "yield" },
    },
    {
      found: "a closed turn",
      log: (ev) => {
        ev.user("hi");
        ev.turnClose("stopped");
      },
      step: { kind: "idle" },
    },
  ];
  for (const row of rows) it(row.found, () => expect(plan(row.log, row.head)).toEqual(row.step));

  it("five failed attempts recorded: the call fails as model_failed", () => {
    const step = plan((ev) => {
      ev.user("hi");
      ev.modelRequest();
      for (let n = 1; n <= 5; n++) attempt(ev, n, NOW - 1);
    });
    expect(step).toMatchObject({ kind: "fail", code: "model_failed" });
  });

  it("attempts survive a re-issued modelRequest of the same invocation", () => {
    const ev = newLog();
    ev.user("hi");
    const req = ev.modelRequest();
    attempt(ev, 1, NOW - 1, "restart");
    ev.events.push({ ...req, seq: ev.events.length + 1, digest: "d" });
    const events = suffix(ev.events);
    expect(projectRunState(ev.events).attempts.map((a) => a.attempt)).toEqual([1]);
    expect(planNextStep(ev.events, projectRunState(ev.events), HEAD, POLICY)).toMatchObject({
      kind: "model",
      call: { kind: "retry", attempt: 2 },
    });
    expect(events.length).toBeGreaterThan(0);
  });
});
