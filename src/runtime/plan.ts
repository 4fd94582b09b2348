/**
 * The pure core of the loop (docs/design.md §2 "Decide, then do"): from the open turn's run state, what
 * the head of the log and this slice look like, and the policy, the one next step. No I/O.
 */

import type { Event } from "../log";
import {
  awaitsChild,
  buildRecoveryPlan,
  type CallState,
  type Inflight,
  MAX_TAKEOVERS,
  planCall,
  type RecoveryPlan,
  type RunState,
  recoveryNeeded,
  SPAWN_TOOL,
} from "../projections";
import type { RuntimePolicy } from "./retry";
import { WAIT_TOOLS, type WaitHead } from "./wait-drafts";

/** What the driver knows besides the run state: the clock, this slice, what died with the last one. */
export type SliceHead = {
  now: number;
  /** Milliseconds since this slice started. */
  sliceElapsedMs: number;
  /** Consecutive slices that started from the current head seq and committed nothing. */
  failedSlices: number;
  inflight: Inflight;
  /** Answers in a row that stopped at `length` without calls (the turn's `lengthStreak`). */
  lengthStreak: number;
  /** The open turn's wait and step budget (docs/API.md §6); absent: no wait, no budget. */
  wait?: WaitHead["wait"];
  budget?: WaitHead["budget"];
};

export type PlanPolicy = Pick<
  RuntimePolicy,
  "maxRetries" | "maxContinuations" | "poisonSlices" | "modelStartMs" | "toolStartMs"
> & {
  needsApproval: (call: CallState) => boolean;
};

export type ModelCall =
  /** A new invocation (`continuation`: after an answer cut at `length`, with the runtime's note first). */
  | { kind: "new"; continuation: boolean }
  /** The recorded request again, as attempt `attempt` of its invocation. */
  | { kind: "retry"; invocationId: string; attempt: number; recorded: NonNullable<RunState["lastModelRequest"]> };

export type Step =
  | { kind: "idle" }
  | { kind: "wait_approval" }
  /** A call waits for a person's answers to its server's questions. */
  | { kind: "wait_input" }
  /** Make a call again with the answers to its server's questions. */
  | { kind: "continue_input"; call: CallState }
  /** Blocked on a wait (`wait_for`, the budget, a child): no alarm until a resume. */
  | { kind: "wait" }
  /** Dispatch a wait tool: its T1 starts the wait. */
  | { kind: "begin_wait"; call: CallState }
  /** docs/API.md §7.28: the budget is spent and the model would be called again. */
  | { kind: "budget_wait"; waitId: string; modelCalls: number }
  /** Every call left waits for a child (dispatched spawns): re-attach those not attached yet, then wait. */
  | { kind: "wait_child"; calls: CallState[] }
  | { kind: "retry_wait"; at: number }
  /** The slice's time budget is spent for this kind of work: yield to a fresh slice. */
  | { kind: "yield" }
  | { kind: "recover"; plan: RecoveryPlan }
  | { kind: "request_approval"; call: CallState }
  | { kind: "reject"; call: CallState }
  | { kind: "interrupted"; call: CallState }
  | { kind: "dispatch"; call: CallState }
  | { kind: "rerun"; call: CallState }
  | { kind: "model"; call: ModelCall }
  | { kind: "fail"; code: string; message: string }
  | { kind: "close"; reason: "completed" };

/** Steps that do work and so count as a slice's attempt from its head (docs/API.md §7.13). */
export function isWork(step: Step): boolean {
  return !["idle", "wait_approval", "wait_input", "wait", "wait_child", "retry_wait", "yield"].includes(step.kind);
}

/**
 * The next step of the open turn, decided from `events` (the turn's suffix from its last model
 * request) alone. Recovery comes first and is decided by `buildRecoveryPlan` only.
 */
export function planNextStep(events: Event[], state: RunState, head: SliceHead, policy: PlanPolicy): Step {
  if (state.closed || !state.turnId) return { kind: "idle" };
  if (head.failedSlices >= policy.poisonSlices)
    return {
      kind: "fail",
      code: "internal",
      message: `the runtime failed ${head.failedSlices} slices in a row at the same point of the log; the turn is closed so that nothing loops for ever`,
    };
  // A wait holds nothing in flight: nothing to recover, nothing to do until it is released.
  if (head.wait) return { kind: "wait" };
  const recovery = buildRecoveryPlan(events, policy.needsApproval, head.inflight, state);
  if (recovery.poisoned)
    return {
      kind: "fail",
      code: "internal",
      message: `the run died ${MAX_TAKEOVERS + 1} times while call ${recovery.poisoned} ran; the turn is closed so that nothing loops for ever`,
    };
  if (recoveryNeeded(recovery)) return { kind: "recover", plan: recovery };

  // All spawns of one answer are dispatched before the run waits (docs/API.md §7.31): the calls after
  // a spawn that waits for its child run in order meanwhile, and a wait tool comes only once no
  // spawn of the answer is left undispatched.
  const open = state.calls.filter((c) => !c.answered && !awaitsChild(c));
  const spawnFirst = Object.hasOwn(WAIT_TOOLS, open[0]?.name ?? "")
    ? open.find((c) => c.name === SPAWN_TOOL && !c.dispatch)
    : undefined;
  const first = spawnFirst ?? open[0];
  const waitingChildren = state.calls.filter(awaitsChild);
  if (!first && waitingChildren.length > 0) return { kind: "wait_child", calls: waitingChildren };
  if (first) {
    const p = planCall(first, policy.needsApproval);
    if (p.kind === "wait_approval") return { kind: "wait_approval" };
    if (p.kind === "wait_input") return { kind: "wait_input" };
    if (p.kind === "dispatch" && Object.hasOwn(WAIT_TOOLS, first.name)) return { kind: "begin_wait", call: first };
    if (
      (p.kind === "dispatch" || p.kind === "rerun" || p.kind === "continue_input") &&
      head.sliceElapsedMs >= policy.toolStartMs
    )
      return { kind: "yield" };
    return { kind: p.kind, call: first };
  }

  const request = state.lastModelRequest;
  if (request && !state.modelAnswered && request.invocationId) {
    const last = state.attempts.at(-1);
    const attempt = (last?.attempt ?? 0) + 1;
    if (attempt > policy.maxRetries + 1)
      return { kind: "fail", code: "model_failed", message: `the model call failed after ${attempt - 1} attempts` };
    if (last && last.retryAt > head.now) return { kind: "retry_wait", at: last.retryAt };
    if (head.sliceElapsedMs >= policy.modelStartMs) return { kind: "yield" };
    return { kind: "model", call: { kind: "retry", invocationId: request.invocationId, attempt, recorded: request } };
  }

  const budget = head.budget;
  const next = (continuation: boolean): Step =>
    budget && budget.modelCalls >= budget.max
      ? { kind: "budget_wait", waitId: budget.nextWaitId, modelCalls: budget.modelCalls }
      : head.sliceElapsedMs >= policy.modelStartMs
        ? { kind: "yield" }
        : { kind: "model", call: { kind: "new", continuation } };
  // A compaction waiting for its retry holds the next call; once due, the next call compacts again
  // (a continuation's note is already in the log, so it is not written twice).
  const compaction = state.compaction;
  if (compaction) {
    const last = compaction.attempts.at(-1);
    if (last && last.retryAt > head.now) return { kind: "retry_wait", at: last.retryAt };
    return next(false);
  }
  if (!request || state.calls.length > 0 || state.inputAfterLastRequest) return next(false);
  const answer = state.answer;
  if (answer?.finishReason === "length" && !answer.truncated && head.lengthStreak <= policy.maxContinuations)
    return next(true);
  return { kind: "close", reason: "completed" };
}
