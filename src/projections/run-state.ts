import type { Event, ToolEffect } from "../contract/event";
import { SPAWN_TOOL } from "./children";
import { type CallRound, foldRound } from "./waits";

export type CallState = {
  callId: string;
  name: string;
  args: unknown;
  seq: number;
  invocationId: string | undefined;
  /** `waitId`: the dispatch started a wait (`stateDelta.wait`): a pending wait, not a recovery case. */
  dispatch: { effect: ToolEffect; idempotencyKey: string; seq: number; waitId?: string } | null;
  answered: boolean;
  approval: { requestId: string; decision: "approve" | "reject" | null } | null;
  /** The round of a remote tool's questions the call waits on (docs/API.md#questions-from-mcp-servers). */
  input: CallRound | null;
};

/** A failed provider attempt recorded as hidden `stateDelta.modelAttempt` (docs/API.md §3, §7.8). */
export type ModelAttempt = { invocationId: string; attempt: number; code: string; message: string; retryAt: number };

/** The last model request of the turn, as recorded. */
export type RecordedRequest = {
  seq: number;
  invocationId: string | undefined;
  throughSeq: number;
  checkpointId: string | null;
  requestDigest: string;
};

/**
 * A compaction's model call that has no outcome yet (docs/design.md#context): its request is
 * recorded, and neither a checkpoint nor a later request (the next piece, the turn's own call)
 * followed. Its failed attempts wait for their `retryAt` like the turn's own calls.
 */
export type PendingCompaction = { invocationId: string; seq: number; requestDigest: string; attempts: ModelAttempt[] };

/** What the open turn is doing, projected from its events since the last model request. */
export type RunState = {
  turnId: string | null;
  runId: string | null;
  closed: boolean;
  lastModelRequest: RecordedRequest | null;
  /** A model answer (any model-authored event) was committed after the last model request. */
  modelAnswered: boolean;
  /** How the answer ended (`stateDelta.finishReason` on its usage event) and whether it was marked truncated. */
  answer: { finishReason: string | null; truncated: boolean } | null;
  /** Failed attempts of the last request's invocation, in order (they survive a re-issued `modelRequest`). */
  attempts: ModelAttempt[];
  /** The tool calls of the last model answer, in order. */
  calls: CallState[];
  /** User input committed after the last model request (or any input when none was made yet). */
  inputAfterLastRequest: boolean;
  /** A compaction call under way or waiting for its retry. */
  compaction: PendingCompaction | null;
  /** Seq of the latest `stateDelta.runStarted` (a recovery takeover) in these events. */
  runStartedSeq: number | null;
  /** Seqs of every takeover in these events. */
  takeovers: number[];
};

/** `stateDelta.modelAttempt`, if the event carries a well-formed one. */
export function modelAttemptOf(e: Event): ModelAttempt | null {
  const m = e.actions?.stateDelta?.modelAttempt as Partial<ModelAttempt> | undefined;
  if (!m || typeof m.attempt !== "number" || typeof m.invocationId !== "string") return null;
  return {
    invocationId: m.invocationId,
    attempt: m.attempt,
    code: String(m.code ?? ""),
    message: String(m.message ?? ""),
    retryAt: typeof m.retryAt === "number" ? m.retryAt : Date.parse(String(m.retryAt)) || 0,
  };
}

/** Where the last call with `callId` is in `calls` (the answer's calls, in order), or -1. */
function callAt(calls: readonly CallState[], callId: string): number {
  for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!.callId === callId) return i;
  return -1;
}

/** The call `callId`, if the answer has it, replaced by a copy with `patch` (the earlier object is left as it was). */
function patchCall(calls: CallState[], callId: string, patch: Partial<CallState>): void {
  const i = callAt(calls, callId);
  if (i >= 0) calls[i] = { ...calls[i]!, ...patch };
}

/** The run state of no events. */
const EMPTY: RunState = {
  turnId: null,
  runId: null,
  closed: false,
  lastModelRequest: null,
  modelAnswered: false,
  answer: null,
  attempts: [],
  calls: [],
  inputAfterLastRequest: false,
  compaction: null,
  runStartedSeq: null,
  takeovers: [],
};

/**
 * Projects run state from the open turn's suffix: `events` must start at or before the
 * turn's last `modelRequest` (or at the turn's first event when it has none). Pure.
 */
export function projectRunState(events: readonly Event[]): RunState {
  return foldRunState(EMPTY, events);
}

/**
 * `prior` with `events` folded in: the events that follow the ones `prior` was projected from,
 * so `foldRunState(projectRunState(a), b)` equals `projectRunState([...a, ...b])`. Pure: `prior`
 * and every object in it are left as they were (a changed call is a new object), so a state read
 * earlier stays what it was while the loop folds the next events.
 */
export function foldRunState(prior: RunState, events: readonly Event[]): RunState {
  if (events.length === 0) return prior;
  const state: RunState = {
    ...prior,
    answer: prior.answer && { ...prior.answer },
    attempts: [...prior.attempts],
    calls: [...prior.calls],
    compaction: prior.compaction && { ...prior.compaction, attempts: [...prior.compaction.attempts] },
    takeovers: [...prior.takeovers],
  };
  for (const e of events) {
    if (e.turnId) state.turnId = e.turnId;
    if (e.runId) state.runId = e.runId;
    const a = e.actions ?? {};
    const c = e.content;
    const delta = a.stateDelta;
    if (a.modelRequest?.purpose === "compaction" && e.invocationId) {
      const same = state.compaction?.invocationId === e.invocationId;
      state.compaction = {
        invocationId: e.invocationId,
        seq: e.seq,
        requestDigest: a.modelRequest.requestDigest,
        attempts: same ? state.compaction!.attempts : [],
      };
      continue;
    }
    if (delta?.checkpoint) state.compaction = null;
    if (a.modelRequest) {
      state.compaction = null;
      const same = state.lastModelRequest?.invocationId === e.invocationId && e.invocationId !== undefined;
      state.lastModelRequest = {
        seq: e.seq,
        invocationId: e.invocationId,
        throughSeq: a.modelRequest.throughSeq,
        checkpointId: a.modelRequest.checkpointId,
        requestDigest: a.modelRequest.requestDigest,
      };
      if (!same) state.attempts = [];
      state.modelAnswered = false;
      state.answer = null;
      state.calls = [];
      state.inputAfterLastRequest = false;
      continue;
    }
    if (delta?.runStarted) {
      state.runStartedSeq = e.seq;
      state.takeovers.push(e.seq);
    }
    const attempt = modelAttemptOf(e);
    if (attempt && attempt.invocationId === state.compaction?.invocationId) state.compaction.attempts.push(attempt);
    else if (attempt && attempt.invocationId === state.lastModelRequest?.invocationId) state.attempts.push(attempt);
    if (e.author === "user" && c?.type === "text") state.inputAfterLastRequest = true;
    if (e.author === "model") {
      state.modelAnswered = true;
      state.answer ??= { finishReason: null, truncated: false };
      if (typeof delta?.finishReason === "string") state.answer.finishReason = delta.finishReason;
      if (delta?.truncated === true) state.answer.truncated = true;
    }
    if (c?.type === "functionCall") {
      state.calls.push({
        callId: c.callId,
        name: c.name,
        args: c.args,
        seq: e.seq,
        invocationId: e.invocationId,
        dispatch: null,
        answered: false,
        approval: null,
        input: null,
      });
    }
    const dispatched = a.toolDispatch;
    if (dispatched) {
      const waitId = (delta?.wait as { waitId?: unknown } | undefined)?.waitId;
      patchCall(state.calls, dispatched.callId, {
        dispatch: {
          effect: dispatched.effect,
          idempotencyKey: dispatched.idempotencyKey,
          seq: e.seq,
          ...(typeof waitId === "string" ? { waitId } : {}),
        },
      });
    }
    // docs/design.md#remote-calls: a call whose remote task is recorded waits for it; never recovered.
    const remote = delta?.remoteTask as { callId?: unknown; waitId?: unknown } | undefined;
    if (remote && typeof remote.callId === "string" && typeof remote.waitId === "string") {
      const i = callAt(state.calls, remote.callId);
      const call = state.calls[i];
      if (call?.dispatch) state.calls[i] = { ...call, dispatch: { ...call.dispatch, waitId: remote.waitId } };
    }
    const asked = a.permissionRequest;
    if (asked) patchCall(state.calls, asked.callId, { approval: { requestId: asked.requestId, decision: null } });
    const decided = a.permissionDecision;
    if (decided)
      state.calls = state.calls.map((call) =>
        call.approval?.requestId === decided.requestId
          ? { ...call, approval: { ...call.approval, decision: decided.decision } }
          : call,
      );
    if (delta?.inputRequested || delta?.inputAnswered)
      state.calls = state.calls.map((call) => {
        const input = foldRound(call.input, e, call.callId);
        return input === call.input ? call : { ...call, input };
      });
    if (c?.type === "functionResponse") patchCall(state.calls, c.callId, { answered: true });
    if (a.turnClose) state.closed = true;
  }
  return state;
}

/**
 * A dispatched `spawn_session` with no response: its answer comes from the child's report, so the
 * run waits for it instead of running or recovering it (docs/API.md §3, §7.31).
 */
export function awaitsChild(call: CallState): boolean {
  return call.name === SPAWN_TOOL && call.dispatch !== null && !call.answered;
}

/** What to do with one unanswered call (docs/design.md §5). */
export type CallPlan =
  | { kind: "wait_approval"; call: CallState }
  | { kind: "request_approval"; call: CallState }
  | { kind: "reject"; call: CallState }
  | { kind: "dispatch"; call: CallState }
  | { kind: "rerun"; call: CallState }
  | { kind: "interrupted"; call: CallState }
  /** The call's server asked questions that are not all answered yet. */
  | { kind: "wait_input"; call: CallState }
  /** Every question of the call's round is answered: make the call again with the answers. */
  | { kind: "continue_input"; call: CallState };

/**
 * Classifies an unanswered call. `needsApproval` applies the session's approval rules
 * to the call's arguments after schema defaults.
 */
export function planCall(call: CallState, needsApproval: (call: CallState) => boolean): CallPlan {
  if (call.dispatch) {
    if (call.input)
      return call.input.inputs.some((i) => i.answer === null)
        ? { kind: "wait_input", call }
        : { kind: "continue_input", call };
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
