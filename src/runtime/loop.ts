/**
 * The thin driver (docs/design.md §4): plan a step from the log, carry it out, repeat; arm the alarm
 * for what comes next. Every decision is `planNextStep`'s; this file only does.
 */

import { type CallState, waitsForInput } from "../projections";
import { parseToolArgs } from "../tools";
import { reattachChildren, stillWaitsForChild } from "./child-calls";
import { outboxDelay } from "./children";
import { failTurn } from "./commands";
import type { RuntimeCtx } from "./deps";
import { closeDraft, interruptedDraft, permissionRequestDraft, recoveryDrafts, rejectedDraft } from "./drafts";
import { runModelStep } from "./model-step";
import { isWork, planNextStep, type Step } from "./plan";
import { sliceBackoff } from "./retry";
import { failedSlicesAt, recordSliceStart } from "./state";
import { runToolStep } from "./tool-step";
import { waitHeadOf } from "./wait-drafts";
import { carryOutWait } from "./waits";

export type SliceHooks = {
  /** Set once the first slice of this incarnation has decided (ends `recovering`). */
  decided: () => void;
  /** The first decision of this incarnation verifies the turn's chain; false when it failed. */
  verifyOnce: () => boolean;
};

/** One slice: steps until the turn waits, closes, or the slice's budget is spent. */
export async function runSlice(rt: RuntimeCtx, hooks: SliceHooks): Promise<void> {
  const startedAt = rt.now();
  let recorded = false;
  const policy = { ...rt.policy, needsApproval: (c: CallState) => rt.needsApproval(c) };
  for (let steps = 0; ; steps++) {
    const s = rt.summary;
    const turn = s?.openTurn;
    if (!s || !turn) {
      hooks.decided();
      await rt.endSlice("parked");
      return;
    }
    if (!hooks.verifyOnce()) return rt.endSlice("parked");
    const events = rt.turnSuffix();
    const state = rt.runState();
    const head = s.highWater;
    const step = planNextStep(
      events,
      state,
      {
        now: rt.now(),
        sliceElapsedMs: rt.now() - startedAt,
        failedSlices: recorded ? 0 : failedSlicesAt(rt.deps.sql, head),
        inflight: rt.underWay.read(),
        lengthStreak: turn.lengthStreak ?? 0,
        ...waitHeadOf(turn),
      },
      policy,
    );
    hooks.decided();
    if (!isWork(step)) return endSlice(rt, step);
    if (steps >= rt.policy.sliceSteps) {
      await rt.endSlice(rt.now());
      return;
    }
    // The dead-man alarm; a slice retrying a head that failed before comes back after the
    // backoff of docs/API.md §7.13 if it dies too, not sooner.
    let lease = rt.policy.leaseMs;
    if (!recorded) {
      // docs/API.md §7.13: before any work, the head this slice starts from.
      const started = recordSliceStart(rt.deps.sql, head);
      if (started > 1) lease = Math.max(lease, sliceBackoff(started, rt.policy));
      recorded = true;
    }
    await rt.lease(rt.now() + lease);
    const base = { turnId: turn.turnId, runId: turn.runId };
    if (!(await carryOut(rt, step, base, startedAt))) {
      const after = rt.summary;
      if (!after?.openTurn || after.pendingApprovals.length > 0 || waitsForInput(after)) await rt.endSlice("parked");
      else continue;
      return;
    }
  }
}

/** What a slice that has nothing to do now asks of the loop: parked, the retry's time, or a fresh slice. */
async function endSlice(rt: RuntimeCtx, step: Step): Promise<void> {
  switch (step.kind) {
    case "retry_wait":
      await rt.endSlice(step.at);
      return;
    case "yield":
      await rt.endSlice(rt.now());
      return;
    case "wait_child": {
      // No loop is held open while children work; a create that failed is sent again later.
      const attached = await reattachChildren(rt, step.calls);
      if (!stillWaitsForChild(rt)) await rt.endSlice(rt.now());
      else if (!attached) await rt.endSlice(rt.now() + outboxDelay(1));
      else await rt.endSlice("parked");
      return;
    }
    default:
      await rt.endSlice("parked");
  }
}

/** Carries out one work step. Returns false when the step ended what this slice can do. */
async function carryOut(
  rt: RuntimeCtx,
  step: Step,
  base: { turnId: string; runId: string },
  startedAt: number,
): Promise<boolean> {
  switch (step.kind) {
    case "recover": {
      const s = rt.require();
      const runId = crypto.randomUUID();
      const state = rt.runState();
      rt.commit(
        recoveryDrafts(step.plan, state, { turnId: base.turnId, runId, highWater: s.highWater, now: rt.now() }),
        () => rt.underWay.cleared(),
      );
      return true;
    }
    case "fail":
      failTurn(rt, step.code, step.message);
      return false;
    case "close":
      rt.commit([closeDraft(base, step.reason)]);
      await rt.failpoint("F11");
      return false;
    case "request_approval": {
      const tool = rt.toolFor(step.call.name)!;
      const parsed = parseToolArgs(tool, step.call.args);
      rt.commit([permissionRequestDraft(step.call, base, parsed.ok ? parsed.args : step.call.args)]);
      await rt.failpoint("F8");
      return false;
    }
    case "reject":
      rt.commit([rejectedDraft(step.call, { ...base, invocationId: step.call.invocationId }, { reason: "rejected" })]);
      return true;
    case "interrupted":
      rt.commit([interruptedDraft(step.call, base, "recovery")]);
      return true;
    case "dispatch":
      return runToolStep(rt, step.call, base, false);
    case "rerun":
      return runToolStep(rt, step.call, base, true);
    case "continue_input":
      return runToolStep(rt, step.call, base, "continue");
    case "model":
      return runModelStep(rt, step.call, startedAt);
    case "begin_wait":
    case "budget_wait":
      return carryOutWait(rt, step, base);
    default:
      return false;
  }
}

/** After a slice threw: come back after the backoff of docs/API.md §7.13 (the next slice decides). */
export async function afterFailedSlice(rt: RuntimeCtx): Promise<void> {
  const s = rt.summary;
  if (!s?.openTurn) return rt.endSlice("parked");
  const failures = failedSlicesAt(rt.deps.sql, s.highWater);
  await rt.endSlice(rt.now() + sliceBackoff(failures, rt.policy));
}
