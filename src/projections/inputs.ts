/**
 * Questions a tool's server asks a person during a call (docs/API.md#questions-from-mcp-servers), as
 * the log records them: `stateDelta.inputRequested` when asked, `stateDelta.inputAnswered` when
 * answered. Which are open (the session waits for them), and the round a call waits on. Pure.
 */

import type { Event } from "../contract/event";
import type { InputAnswer, PendingInput } from "../contract/session";

export type { InputAnswer, PendingInput } from "../contract/session";

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
