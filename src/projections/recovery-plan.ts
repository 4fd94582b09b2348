/**
 * Recovery after a restart (docs/API.md#recovery-notices): what was under way, and what the next
 * slice records about it, decided from the log and the `inflight` row alone. Pure.
 */
import type { Event } from "../contract/event";
import { awaitsChild, type CallState, planCall, projectRunState, type RunState } from "./run-state";

/**
 * What this isolate knows was under way when a slice ended without finishing it (the `inflight`
 * row in `meta`): a model attempt or a tool run. Absent after a clean step.
 */
export type Inflight = {
  invocationId?: string;
  attempt?: number;
  callId?: string;
  /** Written by this incarnation of the object: its own slice failed, the object did not restart. */
  mine?: boolean;
} | null;

export type RecoveryPlan = {
  /** The turn is closed (completed, stopped or failed): nothing continues. */
  closed: boolean;
  /** A model request with no committed answer: issue it again. */
  reissueModel: boolean;
  /** The lost attempt of that request (its number), when it was under way and lost. */
  reissue: { invocationId: string; attempt: number } | null;
  rerun: string[];
  interrupted: string[];
  /** Calls never dispatched: run normally (after approval, if a rule needs one). */
  runNormally: string[];
  waitingApproval: string[];
  /** Calls waiting for a person's answers to their server's questions: pending, not a recovery case. */
  waitingInput: string[];
  /** Dispatched spawns waiting for their child: re-attached with the idempotent create, never recovered. */
  waitingChild: string[];
  /**
   * A call that was re-run by `MAX_TAKEOVERS` takeovers and died with the run again: a poisoned
   * input (docs/API.md §7.13). The turn fails instead of taking over for ever.
   */
  poisoned: string | null;
};

/** Takeovers that may re-run one call before it counts as poisoned. */
export const MAX_TAKEOVERS = 4;

/**
 * What recovery does with an open turn whose last slice ended without finishing its work
 * (docs/API.md §3 Recovery, §7.11, §7.12). The single place that decides recovery. Pure:
 * projecting the same prefix twice gives the same plan.
 *
 * Only work nobody is doing any more counts: a call dispatched before the latest takeover
 * (`runStarted`) is already that takeover's (it re-runs it), unless `inflight` says the run died
 * again with it; a model request with recorded failed attempts is waiting for its retry, unless
 * `inflight` says the next attempt was under way.
 */
export function buildRecoveryPlan(
  events: Event[],
  needsApproval: (call: CallState) => boolean,
  inflight: Inflight = null,
  projected?: RunState,
): RecoveryPlan {
  // The planner has projected the same events already (`projected`): once a step is enough.
  const state = projected ?? projectRunState(events);
  const plan: RecoveryPlan = {
    closed: state.closed || !state.turnId,
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
  if (plan.closed) return plan;
  const request = state.lastModelRequest;
  if (request && !state.modelAnswered && request.invocationId) {
    const last = state.attempts.at(-1)?.attempt ?? 0;
    // docs/API.md §7.8: `restart` only when the object restarted. An attempt this incarnation started
    // and lost with a failed slice is sent again by the next slice (the poison count bounds it).
    const lost =
      inflight?.mine !== true &&
      (last === 0 || (inflight?.invocationId === request.invocationId && (inflight.attempt ?? 0) > last));
    if (lost) {
      plan.reissueModel = true;
      plan.reissue = { invocationId: request.invocationId, attempt: last + 1 };
    }
  }
  const compaction = state.compaction;
  if (compaction) {
    const last = compaction.attempts.at(-1)?.attempt ?? 0;
    const lost =
      inflight?.mine !== true &&
      (last === 0 || (inflight?.invocationId === compaction.invocationId && (inflight.attempt ?? 0) > last));
    if (lost) {
      plan.reissueModel = true;
      plan.reissue = { invocationId: compaction.invocationId, attempt: last + 1 };
    }
  }
  for (const call of state.calls) {
    if (call.answered) continue;
    if (awaitsChild(call)) {
      plan.waitingChild.push(call.callId);
      continue;
    }
    // docs/design.md §5: a dispatched wait (wait_for, a child at work) is pending, not a recovery case.
    if (call.dispatch?.waitId) continue;
    const p = planCall(call, needsApproval);
    if (p.kind === "wait_input") {
      plan.waitingInput.push(call.callId);
      continue;
    }
    if (p.kind === "continue_input") {
      // Made again with the answers when the run died: the effect decides, as for any lost call
      // (docs/API.md#questions-from-mcp-servers); otherwise the answers are still to be sent.
      const lost = inflight?.callId === call.callId && inflight.mine !== true;
      if (lost && call.dispatch?.effect === "write") plan.interrupted.push(call.callId);
      else plan.runNormally.push(call.callId);
      continue;
    }
    const orphaned =
      call.dispatch !== null &&
      (state.runStartedSeq === null || call.dispatch.seq > state.runStartedSeq || inflight?.callId === call.callId);
    if (p.kind === "rerun") {
      const taken = state.takeovers.filter((seq) => seq > (call.dispatch?.seq ?? 0)).length;
      if (orphaned && taken >= MAX_TAKEOVERS) plan.poisoned ??= call.callId;
      else if (orphaned) plan.rerun.push(call.callId);
    } else if (p.kind === "interrupted") plan.interrupted.push(call.callId);
    else if (p.kind === "wait_approval") plan.waitingApproval.push(call.callId);
    else plan.runNormally.push(call.callId);
  }
  return plan;
}

/** True when recovery has something to record: a re-run, an interrupted write or a re-issued call. */
export function recoveryNeeded(plan: RecoveryPlan): boolean {
  if (plan.poisoned !== null) return false;
  return !plan.closed && (plan.rerun.length > 0 || plan.interrupted.length > 0 || plan.reissue !== null);
}

/** The directive an interrupted write carries to the model (docs/API.md §3). */
export const INTERRUPTED_DIRECTIVE =
  "This call was interrupted by a restart after it was dispatched. Its side effect may or may not have happened: inspect the workspace or the external system before deciding to retry.";
