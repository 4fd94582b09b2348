/**
 * A2A tasks as highwater turns (docs/API.md#a2a-server): the task id names the session (the
 * task's `contextId`), the seq of the message that opened or joined the turn, and the turn; a
 * task's status, history and artifact are a `TurnView` read from the log. Pure: no I/O.
 */
import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
  type TaskStatus,
} from "@a2a-js/sdk";
import type { TurnMessage, TurnState, TurnView } from "./turn-read";

export type TaskRef = { sessionId: string; seq: number; turnId: string };

const TASK_ID = /^([0-9a-f]{64})\.([1-9][0-9]{0,15})\.([A-Za-z0-9_:-]{1,128})$/;

/** The id of the answer's artifact: one per task, replaced as a whole (never appended to). */
export const ANSWER_ARTIFACT = "answer";

export function taskIdOf(ref: TaskRef): string {
  return `${ref.sessionId}.${ref.seq}.${ref.turnId}`;
}

/** The parts of a task id, or null when it is not one this server mints. */
export function parseTaskId(taskId: unknown): TaskRef | null {
  const m = typeof taskId === "string" ? TASK_ID.exec(taskId) : null;
  if (!m) return null;
  const seq = Number(m[2]);
  return Number.isSafeInteger(seq) ? { sessionId: m[1]!, seq, turnId: m[3]! } : null;
}

const STATE: Record<TurnState, TaskState> = {
  working: TaskState.TASK_STATE_WORKING,
  "input-required": TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

export function isTerminal(state: TurnState): boolean {
  return state === "completed" || state === "failed" || state === "canceled";
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A message of the turn; one sent without an A2A `messageId` is named by its seq. */
export function messageOf(ref: TaskRef, m: TurnMessage): Message {
  return {
    messageId: m.messageId ?? `${ref.sessionId}.${m.seq}`,
    contextId: ref.sessionId,
    taskId: taskIdOf(ref),
    role: m.role === "user" ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: [textPart(m.text)],
    metadata: { "io.highwater/seq": m.seq },
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a status says in words besides its state: what is asked, why it failed. */
function statusMessage(ref: TaskRef, view: TurnView): Message | undefined {
  const text =
    view.state === "input-required"
      ? view.asked
      : view.state === "failed" && view.error
        ? `${view.error.code}: ${view.error.message}`
        : null;
  if (!text) return undefined;
  return {
    messageId: `${ref.sessionId}.${view.head}.status`,
    contextId: ref.sessionId,
    taskId: taskIdOf(ref),
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function statusOf(ref: TaskRef, view: TurnView): TaskStatus {
  return { state: STATE[view.state], message: statusMessage(ref, view), timestamp: view.updatedAt };
}

export function answerArtifact(view: TurnView): Artifact | null {
  if (!view.answer) return null;
  return {
    artifactId: ANSWER_ARTIFACT,
    name: "answer",
    description: "the turn's answer: its last message",
    parts: [textPart(view.answer.text)],
    metadata: { "io.highwater/seq": view.answer.seq },
    extensions: [],
  };
}

/** The task as `GetTask` answers it: `history` is the turn's messages (the last `historyLength`). */
export function taskOf(ref: TaskRef, view: TurnView, historyLength?: number): Task {
  const all = view.messages.map((m) => messageOf(ref, m));
  const history =
    historyLength === undefined ? all : historyLength <= 0 ? [] : all.slice(Math.max(0, all.length - historyLength));
  const artifact = answerArtifact(view);
  return {
    id: taskIdOf(ref),
    contextId: ref.sessionId,
    status: statusOf(ref, view),
    artifacts: artifact ? [artifact] : [],
    history,
    metadata: { "io.highwater/turnId": ref.turnId, "io.highwater/head": view.head },
  };
}

/**
 * What a stream sends for a view read after the last one it sent (`prev` its state, null before
 * the first): each new agent message as a `working` status, then a status when the state changed,
 * with the answer's artifact just before a `completed` one.
 */
export function updatesOf(ref: TaskRef, view: TurnView, prev: TurnState | null): StreamResponse[] {
  const taskId = taskIdOf(ref);
  const out: StreamResponse[] = [];
  const status = (s: TaskStatus): StreamResponse => ({
    payload: {
      $case: "statusUpdate",
      value: { taskId, contextId: ref.sessionId, status: s, metadata: undefined },
    },
  });
  for (const m of view.messages)
    if (m.role === "agent")
      out.push(status({ state: TaskState.TASK_STATE_WORKING, message: messageOf(ref, m), timestamp: m.at }));
  if (view.state === prev) return out;
  const artifact = answerArtifact(view);
  if (artifact)
    out.push({
      payload: {
        $case: "artifactUpdate",
        value: { taskId, contextId: ref.sessionId, artifact, append: false, lastChunk: true, metadata: undefined },
      },
    });
  out.push(status(statusOf(ref, view)));
  return out;
}
