/**
 * Remote calls (docs/design.md#remote-calls) as the summary sees them: a tool call whose outcome
 * comes later from a task on another system (an A2A agent, an MCP server's task). A fold over
 * events and the pure decisions about what releases a wait. Nothing here names a protocol.
 *
 * A remote call's send records `stateDelta.remoteTask { callId, taskId, waitId, notify, …target }`;
 * the open turn then waits (`wait.kind: "remote"`) until the call's response, which carries
 * `stateDelta.remoteResult`. A call answered otherwise (a stop, a failure) leaves its task `late`:
 * its first terminal result is recorded once as `stateDelta.lateResult` and reopens nothing.
 */
import type { Event } from "../contract/event";
import type { InputAnswer } from "../contract/session";
import { inputAnsweredOf, inputRequestedOf, type RecordedInput } from "./waits";

/** One remote task a call started, as recorded. `notify`: sha256 of its notification token, if one was given. */
export type RemoteRecord = {
  callId: string;
  /** The tool the call named, and the invocation it ran in: what its outcome is recorded as. */
  tool: string;
  invocationId?: string;
  taskId: string;
  waitId: string;
  notify: string | null;
  /** Where the task lives (`{ agent: "x" }`, `{ server: "y" }`). */
  target: Record<string, string>;
  turnId: string;
  /** When the whole task must have ended (epoch ms), if its call set one: past it the call times out. */
  deadline?: number;
  /** The send was made again after a restart (an `idempotent` call): its answer says so. */
  rerun?: true;
  /** The task asked for input (`stateDelta.remoteInput`): what it asked, and at which seq. */
  ask?: { text: string; seq: number };
  /** The first user message of the turn after the ask: the answer to send to the task. */
  answerSeq?: number;
  /**
   * The last question the task asked of its own (an MCP task's `input_required`, recorded as
   * `stateDelta.inputRequested { taskId }`) and its answer (`inputAnswered`) and that answer's seq.
   */
  question?: { asked: RecordedInput; answer?: InputAnswer; answerSeq?: number };
};

export type RemoteState = {
  /** Tasks whose call has no response yet: the open turn waits for the first. */
  waiting: RemoteRecord[];
  /** Tasks whose call a close answered before their result came: a late result is recorded once. */
  late: RemoteRecord[];
};

/** How many tasks answered by a close are remembered for a late result (the oldest are forgotten). */
export const MAX_LATE = 16;

/** The terminal states and the error code each answers the call with (`completed` answers ok). */
export const REMOTE_ERROR_CODES = {
  failed: "remote_failed",
  cancelled: "remote_cancelled",
  rejected: "remote_rejected",
  "timed-out": "remote_timeout",
} as const;

const TARGET_KEYS = ["agent", "server"];

/** `stateDelta.remoteTask`, if well formed. */
export function remoteRecordOf(e: Event): RemoteRecord | null {
  const r = e.actions?.stateDelta?.remoteTask as Record<string, unknown> | undefined;
  if (!r || typeof r.callId !== "string" || typeof r.taskId !== "string" || typeof r.waitId !== "string") return null;
  const target: Record<string, string> = {};
  for (const k of TARGET_KEYS) if (typeof r[k] === "string") target[k] = r[k] as string;
  return {
    callId: r.callId,
    tool: typeof r.tool === "string" ? r.tool : "",
    ...(e.invocationId ? { invocationId: e.invocationId } : {}),
    taskId: r.taskId,
    waitId: r.waitId,
    notify: typeof r.notify === "string" ? r.notify : null,
    target,
    turnId: e.turnId ?? "",
    ...(typeof r.deadline === "number" && Number.isFinite(r.deadline) ? { deadline: r.deadline } : {}),
    ...(r.rerun === true ? { rerun: true as const } : {}),
  };
}

/** Folds one event into the remote state (undefined until a session's first remote call). Pure. */
export function reduceRemote(prev: RemoteState | undefined, e: Event): RemoteState | undefined {
  const record = remoteRecordOf(e);
  let next = prev;
  if (record) next = { waiting: [...(next?.waiting ?? []), record], late: next?.late ?? [] };
  if (!next) return next;
  const c = e.content;
  if (c?.type === "functionResponse") {
    const found = next.waiting.find((r) => r.callId === c.callId);
    if (found) {
      const byResult = !!e.actions?.stateDelta?.remoteResult;
      next = {
        waiting: next.waiting.filter((r) => r !== found),
        late: byResult ? next.late : [...next.late, found].slice(-MAX_LATE),
      };
    }
  }
  const input = e.actions?.stateDelta?.remoteInput as { callId?: unknown; ask?: unknown } | undefined;
  if (input && typeof input.callId === "string" && typeof input.ask === "string") {
    const ask = { text: input.ask, seq: e.seq };
    next = {
      ...next,
      waiting: next.waiting.map((r) => (r.callId === input.callId ? withoutAnswer({ ...r, ask }) : r)),
    };
  }
  const reply = e.actions?.stateDelta?.remoteReply as { callId?: unknown } | undefined;
  if (reply && typeof reply.callId === "string")
    next = {
      ...next,
      waiting: next.waiting.map((r) => (r.callId === reply.callId ? withoutAnswer(withoutAsk(r)) : r)),
    };
  if (
    e.author === "user" &&
    c?.type === "text" &&
    next.waiting.some((r) => r.ask && r.answerSeq === undefined && r.turnId === e.turnId)
  )
    next = {
      ...next,
      waiting: next.waiting.map((r) =>
        r.ask && r.answerSeq === undefined && r.turnId === e.turnId ? { ...r, answerSeq: e.seq } : r,
      ),
    };
  next = foldTaskQuestion(next, e);
  const late = e.actions?.stateDelta?.lateResult as { callId?: unknown } | undefined;
  if (late && typeof late.callId === "string")
    next = { ...next, late: next.late.filter((r) => r.callId !== late.callId) };
  return next;
}

/** A task's own question (`inputRequested` naming its task) and the answer to it. */
function foldTaskQuestion(s: RemoteState, e: Event): RemoteState {
  const asked = inputRequestedOf(e);
  if (asked?.taskId !== undefined) {
    const mine = (r: RemoteRecord) => r.callId === asked.callId && r.taskId === asked.taskId;
    return s.waiting.some(mine)
      ? { ...s, waiting: s.waiting.map((r) => (mine(r) ? { ...r, question: { asked } } : r)) }
      : s;
  }
  const answered = inputAnsweredOf(e);
  if (!answered) return s;
  const mine = (r: RemoteRecord) => r.question?.asked.requestId === answered.requestId;
  if (!s.waiting.some(mine)) return s;
  const answer: InputAnswer = {
    action: answered.action,
    ...(answered.content !== undefined ? { content: answered.content } : {}),
  };
  return {
    ...s,
    waiting: s.waiting.map((r) =>
      mine(r) && r.question ? { ...r, question: { ...r.question, answer, answerSeq: e.seq } } : r,
    ),
  };
}

function withoutAsk(r: RemoteRecord): RemoteRecord {
  const { ask: _ask, ...rest } = r;
  return rest;
}

function withoutAnswer(r: RemoteRecord): RemoteRecord {
  const { answerSeq: _answer, ...rest } = r;
  return rest;
}

/** The task the open turn's wait `waitId` is for, or null: only it may release that wait. */
export function waitingTask(s: RemoteState | undefined, waitId: string): RemoteRecord | null {
  return s?.waiting.find((r) => r.waitId === waitId) ?? null;
}

/**
 * Whether a result for `taskId` may release wait `waitId` (docs/API.md#a2a-agents): only the
 * task recorded for that wait, and only while it waits. Anything else (another task, a wait that
 * ended or was never this one's) releases nothing.
 */
export function releases(s: RemoteState | undefined, waitId: string, taskId: string): boolean {
  return waitingTask(s, waitId)?.taskId === taskId;
}

/** What a notification (a token's digest and the task it names) refers to. */
export type NoticeTarget =
  | { kind: "waiting"; record: RemoteRecord }
  | { kind: "late"; record: RemoteRecord }
  | { kind: "refused"; reason: "unknown_token" | "other_task" };

/**
 * Which recorded task a notification is about (docs/API.md#a2a-agents): its token's digest names
 * one wait's task (waiting, or answered by a close and waiting for its late result); a token no
 * record holds (forged, spent, of a wait that ended) or a task other than the recorded one is refused.
 */
export function noticeTarget(s: RemoteState | undefined, digest: string, taskId: string | null): NoticeTarget {
  const waiting = s?.waiting.find((r) => r.notify === digest);
  const late = waiting ? undefined : s?.late.find((r) => r.notify === digest);
  const record = waiting ?? late;
  if (!record) return { kind: "refused", reason: "unknown_token" };
  if (taskId !== null && taskId !== record.taskId) return { kind: "refused", reason: "other_task" };
  return waiting ? { kind: "waiting", record } : { kind: "late", record };
}

/** The wait before the next poll after `polls` polls of one task: 1 s, doubling, at most 5 minutes. */
export function remotePollDelay(polls: number): number {
  return Math.min(300_000, 1_000 * 2 ** Math.max(0, polls - 1));
}
