/**
 * Questions from a tool's server, the doing part (docs/API.md#questions-from-mcp-servers): the
 * drafts that record them, the wait of a call that asks over its open stream, and the answer
 * command. What to do next is the planner's (`wait_input`, `continue_input`); this module carries it out.
 */
import type { Session } from "../contract";
import type { EventDraft } from "../log";
import type { CallState, InputAnswer, PendingInput } from "../projections";
import { rows, type SqlLike } from "../storage";
import { answerIssues, type McpQuestion } from "../tools/mcp/questions";
import type { CallInput, ToolResult } from "../tools/types";
import type { CommandCtx, RuntimeCtx } from "./deps";
import { type Base, hidden } from "./draft-base";
import { ApiError } from "./errors";

export const INPUT_ID = /^inp_[0-9a-f]{24}$/;

export function newInputId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `inp_${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The server a tool belongs to (`mcp:<server>`), or the tool's own name. */
export function serverOf(source: string | undefined, name: string): string {
  return source?.startsWith("mcp:") ? source.slice(4) : name;
}

export function questionDelta(q: McpQuestion): Pick<PendingInput, "message" | "schema" | "url"> {
  return q.mode === "url" ? { message: q.message, url: q.url } : { message: q.message, schema: q.schema };
}

/** One hidden `stateDelta.inputRequested` per question of a 2026-07-28 server's round. */
export function roundDrafts(
  call: CallState,
  base: Base,
  server: string,
  round: NonNullable<ToolResult["awaitInput"]>,
): EventDraft[] {
  return round.questions.map(({ key, question }) =>
    hidden(
      { ...base, invocationId: call.invocationId },
      {
        actions: {
          stateDelta: {
            inputRequested: {
              requestId: newInputId(),
              callId: call.callId,
              server,
              ...questionDelta(question),
              key,
              ...(round.requestState !== undefined ? { requestState: round.requestState } : {}),
            },
          },
        },
      },
    ),
  );
}

/** The answers a call is made again with: its round's, by the keys the server gave. */
export function roundAnswers(call: CallState): CallInput {
  const round = call.input;
  const responses: CallInput["responses"] = {};
  for (const i of round?.inputs ?? []) if (i.answer) responses[i.key] = i.answer;
  return { responses, ...(round?.requestState !== undefined ? { requestState: round.requestState } : {}) };
}

type Waiter = { resolve: (a: InputAnswer) => void };
/** Calls waiting on their open stream for an answer, by requestId (memory only: they end with the object). */
const streamWaiters = new WeakMap<RuntimeCtx, Map<string, Waiter>>();

function waitersOf(rt: RuntimeCtx): Map<string, Waiter> {
  let m = streamWaiters.get(rt);
  if (!m) {
    m = new Map();
    streamWaiters.set(rt, m);
  }
  return m;
}

/**
 * The `ask` of a call to a 2025-11-25 server: records the question (marked `stream`), then waits
 * for its answer while the call's stream is open. A stop or the call's own end cancels it.
 */
export function askOverStream(rt: RuntimeCtx, call: CallState, base: Base, server: string, signal: AbortSignal) {
  return (question: McpQuestion): Promise<InputAnswer> => {
    const requestId = newInputId();
    rt.commit([
      hidden(
        { ...base, invocationId: call.invocationId },
        {
          actions: {
            stateDelta: {
              inputRequested: { requestId, callId: call.callId, server, ...questionDelta(question), stream: true },
            },
          },
        },
      ),
    ]);
    const waiters = waitersOf(rt);
    return new Promise<InputAnswer>((resolve) => {
      const done = (a: InputAnswer) => {
        waiters.delete(requestId);
        signal.removeEventListener("abort", cancel);
        resolve(a);
      };
      const cancel = () => done({ action: "cancel" });
      if (signal.aborted) return cancel();
      signal.addEventListener("abort", cancel, { once: true });
      waiters.set(requestId, { resolve: done });
    });
  };
}

/** Whether this session ever asked the question `requestId` (by value among the recorded questions). */
export function inputKnown(sql: SqlLike, requestId: string): boolean {
  if (!INPUT_ID.test(requestId)) return false;
  return (
    rows(sql)`SELECT 1 FROM events
      WHERE kind = 'state:inputRequested' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse')
      AND json_extract(body, '$.actions.stateDelta.inputRequested.requestId') = ${requestId} LIMIT 1`.length > 0
  );
}

/** The question as the server asked it, for checking an answer. */
export function questionOfPending(p: PendingInput): McpQuestion {
  return p.url !== undefined
    ? { mode: "url", message: p.message, url: p.url }
    : { mode: "form", message: p.message, schema: p.schema ?? { type: "object", properties: {} } };
}

/**
 * `POST /v1/sessions/:id/inputs/:requestId` (docs/API.md#questions-from-mcp-servers): an open
 * question's answer, checked against its schema (400, nothing written), once only (409); an id
 * this session never asked is 404. A question asked over a stream that is gone (the object
 * restarted) is no longer open: 409.
 */
export function answerInput(rt: RuntimeCtx, requestId: string, answer: InputAnswer): void {
  const s = rt.require();
  if (!INPUT_ID.test(requestId)) throw new ApiError("not_found", "unknown input request");
  const pending = (s.pendingInputs ?? []).find((p) => p.requestId === requestId);
  const waiter = waitersOf(rt).get(requestId);
  if (!pending || (pending.stream && !waiter)) {
    if (pending || inputKnown(rt.deps.sql, requestId))
      throw new ApiError("conflict", "this question is already answered or closed");
    throw new ApiError("not_found", "unknown input request");
  }
  const issues = answerIssues(questionOfPending(pending), answer);
  if (issues.length > 0)
    throw new ApiError("bad_request", `the answer does not fit the question: ${issues.join("; ")}`);
  const turn = s.openTurn!;
  const recorded = { action: answer.action, ...(answer.content !== undefined ? { content: answer.content } : {}) };
  rt.commit([
    {
      author: "user",
      modelVisibility: "hidden",
      turnId: turn.turnId,
      runId: turn.runId,
      actions: { stateDelta: { inputAnswered: { requestId, callId: pending.callId, ...recorded } } },
    },
  ]);
  waiter?.resolve(recorded);
}

/** The answer command: recorded, then a parked loop goes on (a round fully answered is sent again). */
export async function answer(rt: CommandCtx, requestId: string, input: InputAnswer): Promise<Session> {
  answerInput(rt, requestId, input);
  // A task's own question: its answer is sent at the next poll, which is due now (./remote-asks.ts).
  if (rt.summary?.remote?.waiting.some((r) => r.question?.asked.requestId === requestId)) await rt.kick();
  const state = rt.runState();
  if (state.calls.some((c) => c.input?.inputs.every((i) => i.answer !== null))) {
    rt.markDecided();
    await rt.kick();
  }
  return rt.session();
}
