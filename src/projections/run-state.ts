import type { Event, ToolEffect } from "../log";

export type CallState = {
  callId: string;
  name: string;
  args: unknown;
  seq: number;
  invocationId: string | undefined;
  dispatch: { effect: ToolEffect; idempotencyKey: string } | null;
  answered: boolean;
  approval: { requestId: string; decision: "approve" | "reject" | null } | null;
};

/** What the open turn is doing, projected from its events since the last model request. */
export type RunState = {
  turnId: string | null;
  closed: boolean;
  lastModelRequest: { seq: number; invocationId: string | undefined } | null;
  /** A model answer (any model-authored event) was committed after the last model request. */
  modelAnswered: boolean;
  /** The tool calls of the last model answer, in order. */
  calls: CallState[];
  /** User input committed after the last model request (or any input when none was made yet). */
  inputAfterLastRequest: boolean;
};

/**
 * Projects run state from the open turn's suffix: `events` must start at or before the
 * turn's last `modelRequest` (or at the turn's first event when it has none). Pure.
 */
export function projectRunState(events: Event[]): RunState {
  const state: RunState = {
    turnId: null,
    closed: false,
    lastModelRequest: null,
    modelAnswered: false,
    calls: [],
    inputAfterLastRequest: false,
  };
  const byId = new Map<string, CallState>();
  for (const e of events) {
    if (e.turnId) state.turnId = e.turnId;
    const a = e.actions ?? {};
    const c = e.content;
    if (a.modelRequest) {
      state.lastModelRequest = { seq: e.seq, invocationId: e.invocationId };
      state.modelAnswered = false;
      state.calls = [];
      state.inputAfterLastRequest = false;
      byId.clear();
      continue;
    }
    if (e.author === "user" && c?.type === "text") state.inputAfterLastRequest = true;
    if (e.author === "model") state.modelAnswered = true;
    if (c?.type === "functionCall") {
      const call: CallState = {
        callId: c.callId,
        name: c.name,
        args: c.args,
        seq: e.seq,
        invocationId: e.invocationId,
        dispatch: null,
        answered: false,
        approval: null,
      };
      state.calls.push(call);
      byId.set(c.callId, call);
    }
    if (a.toolDispatch) {
      const call = byId.get(a.toolDispatch.callId);
      if (call) call.dispatch = { effect: a.toolDispatch.effect, idempotencyKey: a.toolDispatch.idempotencyKey };
    }
    if (a.permissionRequest) {
      const call = byId.get(a.permissionRequest.callId);
      if (call) call.approval = { requestId: a.permissionRequest.requestId, decision: null };
    }
    if (a.permissionDecision) {
      for (const call of state.calls)
        if (call.approval?.requestId === a.permissionDecision.requestId)
          call.approval = { ...call.approval, decision: a.permissionDecision.decision };
    }
    if (c?.type === "functionResponse") {
      const call = byId.get(c.callId);
      if (call) call.answered = true;
    }
    if (a.turnClose) state.closed = true;
  }
  return state;
}

/** What to do with one unanswered call (DESIGN §5). */
export type CallPlan =
  | { kind: "wait_approval"; call: CallState }
  | { kind: "request_approval"; call: CallState }
  | { kind: "reject"; call: CallState }
  | { kind: "dispatch"; call: CallState }
  | { kind: "rerun"; call: CallState }
  | { kind: "interrupted"; call: CallState };

/**
 * Classifies an unanswered call. `needsApproval` applies the session's approval rules
 * to the call's arguments after schema defaults.
 */
export function planCall(call: CallState, needsApproval: (call: CallState) => boolean): CallPlan {
  if (call.dispatch) {
    return call.dispatch.effect === "write" ? { kind: "interrupted", call } : { kind: "rerun", call };
  }
  if (call.approval) {
    if (call.approval.decision === null) return { kind: "wait_approval", call };
    if (call.approval.decision === "reject") return { kind: "reject", call };
    return { kind: "dispatch", call };
  }
  return needsApproval(call) ? { kind: "request_approval", call } : { kind: "dispatch", call };
}

/** The loop's next step, decided from the log alone. */
export type NextStep = { kind: "none" } | { kind: "call"; plan: CallPlan } | { kind: "model" } | { kind: "complete" };

export function decideNextStep(state: RunState, needsApproval: (call: CallState) => boolean): NextStep {
  if (state.closed || !state.turnId) return { kind: "none" };
  const pending = state.calls.filter((c) => !c.answered);
  // Calls run in order; the first unanswered one decides (an approval blocks the ones after it).
  const first = pending[0];
  if (first) return { kind: "call", plan: planCall(first, needsApproval) };
  if (!state.lastModelRequest) return { kind: "model" };
  if (!state.modelAnswered) return { kind: "model" };
  if (state.calls.length > 0 || state.inputAfterLastRequest) return { kind: "model" };
  return { kind: "complete" };
}

export type RecoveryPlan = {
  /** The turn is closed (completed, stopped or failed): nothing continues. */
  closed: boolean;
  /** A model request with no committed answer: issue it again. */
  reissueModel: boolean;
  rerun: string[];
  interrupted: string[];
  /** Calls never dispatched: run normally (after approval, if a rule needs one). */
  runNormally: string[];
  waitingApproval: string[];
};

/**
 * What recovery does with an open turn after a restart (CONTRACT §3 Recovery). Pure:
 * projecting the same prefix twice gives the same plan.
 */
export function buildRecoveryPlan(events: Event[], needsApproval: (call: CallState) => boolean): RecoveryPlan {
  const state = projectRunState(events);
  const plan: RecoveryPlan = {
    closed: state.closed || !state.turnId,
    reissueModel: false,
    rerun: [],
    interrupted: [],
    runNormally: [],
    waitingApproval: [],
  };
  if (plan.closed) return plan;
  plan.reissueModel = state.lastModelRequest !== null && !state.modelAnswered;
  for (const call of state.calls) {
    if (call.answered) continue;
    const p = planCall(call, needsApproval);
    if (p.kind === "rerun") plan.rerun.push(call.callId);
    else if (p.kind === "interrupted") plan.interrupted.push(call.callId);
    else if (p.kind === "wait_approval") plan.waitingApproval.push(call.callId);
    else plan.runNormally.push(call.callId);
  }
  return plan;
}

/** The directive an interrupted write carries to the model (CONTRACT §3). */
export const INTERRUPTED_DIRECTIVE =
  "This call was interrupted by a restart after it was dispatched. Its side effect may or may not have happened: inspect the workspace or the external system before deciding to retry.";
