/**
 * What the open turn waits on, as folds over the log (pure; `reduceSummary` calls them per event):
 *
 * - Waits and the step budget (docs/API.md §6 "Step budget", §7.27, §7.28): which wait the turn
 *   is blocked on, how many model calls it has made since it opened or was last resumed, and the
 *   budget it opened with. A wait starts with an event carrying hidden `stateDelta.wait` (a
 *   `wait_for` dispatch, or a kind that plugs in later such as `child`) or
 *   `stateDelta.budgetWait`, and ends with the response to its call or with
 *   `stateDelta.budgetResume`, or when the turn closes.
 * - Questions a tool's server asks a person during a call (docs/API.md#questions-from-mcp-servers):
 *   `stateDelta.inputRequested` when asked, `stateDelta.inputAnswered` when answered; which are
 *   open, and the round a call waits on.
 */
import type { Event } from "../contract/event";
import type { InputAnswer, PendingInput, SessionWait, WaitKind } from "../contract/session";
import { type ChildrenState, childWait } from "./children";

export type { InputAnswer, PendingInput, SessionWait, WaitKind } from "../contract/session";

/** The wait as the summary keeps it: the public shape plus the call it answers, if any. */
export type TurnWait = SessionWait & { callId?: string; invocationId?: string };

/** docs/API.md §2: the step budget when a session does not set one. */
export const DEFAULT_MAX_MODEL_CALLS = 1000;

/** The `waitId` of a waiting call (`wait_for`, `spawn_session`): derived from its callId. */
export function waitIdForCall(callId: string): string {
  return `wait:${callId}`;
}

/** docs/API.md §7.28: the k-th budget wait of a turn (k from 1). */
export function budgetWaitId(turnId: string, k: number): string {
  return `budget:${turnId}:${k}`;
}

/** What the open turn carries for waits and the budget (all optional: older caches lack them). */
export type TurnBudget = {
  /** Model calls (non-compaction invocations) since the turn opened or was last resumed. */
  modelCalls?: number;
  lastInvocationId?: string;
  /** The budget recorded when the turn opened: a PATCH changes the next turn's. */
  maxModelCalls?: number;
  /** Budget waits so far in this turn (the next one is k = budgetWaits + 1). */
  budgetWaits?: number;
  wait?: TurnWait | null;
};

/** Folds one event of the open turn into its wait and budget state. */
export function reduceTurnWaits<T extends TurnBudget & { turnId: string; runId: string }>(
  turn: T,
  e: Event,
  maxModelCallsPerTurn: number | undefined,
): T {
  let t = turn;
  if (t.maxModelCalls === undefined) t = { ...t, maxModelCalls: maxModelCallsPerTurn ?? DEFAULT_MAX_MODEL_CALLS };
  if (e.turnId !== t.turnId) return t;
  const a = e.actions ?? {};
  const delta = a.stateDelta;
  const request = a.modelRequest as { purpose?: string } | undefined;
  // docs/API.md §7.28: one invocation is one call; its retries and re-issues repeat its id.
  if (request && request.purpose !== "compaction" && e.invocationId && e.invocationId !== t.lastInvocationId)
    t = { ...t, modelCalls: (t.modelCalls ?? 0) + 1, lastInvocationId: e.invocationId };
  const started = delta?.wait as Partial<TurnWait> | undefined;
  if (started && typeof started.waitId === "string") {
    t = {
      ...t,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: started.waitId,
        kind: (started.kind as WaitKind | undefined) ?? "wait_for",
        ...(typeof started.reason === "string" ? { reason: started.reason } : {}),
        ...(a.toolDispatch ? { callId: a.toolDispatch.callId } : started.callId ? { callId: started.callId } : {}),
        ...(e.invocationId ? { invocationId: e.invocationId } : {}),
      },
    };
  }
  // docs/design.md#remote-calls: a remote call's recorded task starts its wait.
  const remote = delta?.remoteTask as { waitId?: unknown; callId?: unknown } | undefined;
  if (remote && typeof remote.waitId === "string" && typeof remote.callId === "string")
    t = {
      ...t,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: remote.waitId,
        kind: "remote",
        callId: remote.callId,
        ...(e.invocationId ? { invocationId: e.invocationId } : {}),
      },
    };
  // A remote task that asks for input: the wait says what is asked, until the answer is sent.
  const input = delta?.remoteInput as { waitId?: unknown; ask?: unknown } | undefined;
  if (input && t.wait?.waitId === input.waitId && typeof input.ask === "string")
    t = { ...t, wait: { ...t.wait, reason: input.ask } };
  const replied = delta?.remoteReply as { waitId?: unknown } | undefined;
  const w = t.wait;
  if (replied && w && w.waitId === replied.waitId && w.reason !== undefined) {
    const { reason: _reason, ...rest } = w;
    t = { ...t, wait: rest };
  }
  const budget = delta?.budgetWait as { waitId?: unknown; modelCalls?: unknown } | undefined;
  if (budget && typeof budget.waitId === "string")
    t = {
      ...t,
      budgetWaits: (t.budgetWaits ?? 0) + 1,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: budget.waitId,
        kind: "budget",
        modelCalls: typeof budget.modelCalls === "number" ? budget.modelCalls : (t.modelCalls ?? 0),
      },
    };
  const resumed = delta?.budgetResume as { waitId?: unknown } | undefined;
  if (resumed && t.wait?.waitId === resumed.waitId) t = { ...t, wait: null, modelCalls: 0 };
  const c = e.content;
  if (c?.type === "functionResponse" && t.wait?.callId === c.callId) t = { ...t, wait: null };
  return t;
}

/** `Session.wait` (docs/API.md §7.27): the public part of the open turn's wait, or null. */
export function publicWait(turn: TurnBudget | null): SessionWait | null {
  const w = turn?.wait;
  if (!w) return null;
  return {
    runId: w.runId,
    waitId: w.waitId,
    kind: w.kind,
    ...(w.reason !== undefined ? { reason: w.reason } : {}),
    ...(w.modelCalls !== undefined ? { modelCalls: w.modelCalls } : {}),
  };
}

/** docs/API.md §7.27 `Session.wait`: a `wait_for` or budget wait of the open turn, else a child at work. */
export function sessionWait(s: { openTurn: TurnBudget | null; children?: ChildrenState }): SessionWait | null {
  const own = publicWait(s.openTurn);
  if (own) return own;
  const w = childWait(s.children);
  return w ? { runId: w.runId, waitId: w.waitId, kind: w.kind } : null;
}

// Questions to people.

/** A recorded question: the public part, the key the server gave it, and its round's state. */
export type RecordedInput = PendingInput & { key?: string; requestState?: string; taskId?: string };

/** `stateDelta.inputRequested`, if the event carries a well-formed one. */
export function inputRequestedOf(e: Event): RecordedInput | null {
  const q = e.actions?.stateDelta?.inputRequested as Partial<RecordedInput> | undefined;
  if (!q || typeof q.requestId !== "string" || typeof q.callId !== "string") return null;
  return q as RecordedInput;
}

/** `stateDelta.inputAnswered`, if the event carries a well-formed one. */
export function inputAnsweredOf(e: Event): (InputAnswer & { requestId: string; callId: string }) | null {
  const a = e.actions?.stateDelta?.inputAnswered as
    | (Partial<InputAnswer> & { requestId?: unknown; callId?: unknown })
    | undefined;
  if (!a || typeof a.requestId !== "string" || typeof a.callId !== "string") return null;
  if (a.action !== "accept" && a.action !== "decline" && a.action !== "cancel") return null;
  return a as InputAnswer & { requestId: string; callId: string };
}

/** The public part of a recorded question. */
export function publicInput(q: RecordedInput): PendingInput {
  return {
    requestId: q.requestId,
    callId: q.callId,
    server: q.server,
    message: q.message,
    ...(q.schema ? { schema: q.schema } : {}),
    ...(q.url ? { url: q.url } : {}),
    ...(q.stream ? { stream: true as const } : {}),
  };
}

/**
 * The open questions after one more event: a question opens when asked and closes when answered,
 * when its call is answered, or when the turn closes; a question asked over a stream closes too
 * when a takeover (`runStarted`) shows the run that held the stream is gone.
 */
export function foldPendingInputs(pending: readonly PendingInput[], e: Event): readonly PendingInput[] {
  const asked = inputRequestedOf(e);
  if (asked) return [...pending, publicInput(asked)];
  if (pending.length === 0) return pending;
  const answered = inputAnsweredOf(e);
  if (answered) return pending.filter((p) => p.requestId !== answered.requestId);
  if (e.content?.type === "functionResponse") {
    const callId = e.content.callId;
    return pending.some((p) => p.callId === callId) ? pending.filter((p) => p.callId !== callId) : pending;
  }
  if (e.actions?.turnClose) return [];
  if (e.actions?.stateDelta?.runStarted && pending.some((p) => p.stream)) return pending.filter((p) => !p.stream);
  return pending;
}

/** One question of the round a call waits on, with its answer once given. */
export type RoundInput = { requestId: string; key: string; answer: InputAnswer | null };

/**
 * The round of questions a call waits on (a 2026-07-28 server's `input_required`): the latest
 * questions recorded for it after its last answered round (a task's own question is no round: its
 * answer goes to the task, docs/API.md#mcp-tasks). The call is made again once every one
 * is answered, with the answers and `requestState`.
 */
export type CallRound = { inputs: RoundInput[]; requestState?: string; seq: number };

/** Adds one event to a call's round (a new question after an answered round starts a new round). */
export function foldRound(round: CallRound | null, e: Event, callId: string): CallRound | null {
  const asked = inputRequestedOf(e);
  if (asked && asked.callId === callId && !asked.stream && asked.taskId === undefined) {
    const fresh = !round || round.inputs.every((i) => i.answer !== null);
    const base: CallRound = fresh
      ? { inputs: [], seq: e.seq, ...(asked.requestState !== undefined ? { requestState: asked.requestState } : {}) }
      : round;
    return {
      ...base,
      inputs: [...base.inputs, { requestId: asked.requestId, key: asked.key ?? asked.requestId, answer: null }],
    };
  }
  const answered = inputAnsweredOf(e);
  if (answered && round && answered.callId === callId)
    return {
      ...round,
      inputs: round.inputs.map((i) =>
        i.requestId === answered.requestId
          ? { ...i, answer: { action: answered.action, ...(answered.content ? { content: answered.content } : {}) } }
          : i,
      ),
    };
  return round;
}

/**
 * Whether the open turn waits for a person's answer with no call running: a question of a
 * 2026-07-28 round (a stream's question is waited for by the call that holds the stream).
 */
export function waitsForInput(s: { pendingInputs?: readonly PendingInput[] }): boolean {
  return (s.pendingInputs ?? []).some((p) => !p.stream);
}
