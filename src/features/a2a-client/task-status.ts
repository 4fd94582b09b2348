/**
 * An A2A task as the remote-call core reads it (docs/API.md#a2a-agents): its state, and once
 * completed the call's answer (the text of its artifacts, else of its status message). Also what a
 * push notification's body says. Pure.
 */
import { type Message, StreamResponse, Task, TaskState } from "@a2a-js/sdk";
import type { RemoteTaskState, RemoteTaskStatus } from "../../tools/types";

const STATES: Partial<Record<TaskState, RemoteTaskState>> = {
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "cancelled",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "input-required",
};

/** At most this much of an answer's text is kept (the runtime offloads a large result on its own). */
const MAX_TEXT_CHARS = 256 * 1024;

type Parts = { parts: Message["parts"] };

/** The text parts of `holders`, joined by blank lines; data parts as JSON. */
export function textOf(holders: readonly Parts[]): string {
  const out: string[] = [];
  for (const h of holders)
    for (const p of h.parts ?? []) {
      if (p.content?.$case === "text") out.push(p.content.value);
      else if (p.content?.$case === "data") out.push(JSON.stringify(p.content.value));
      else if (p.content?.$case === "url") out.push(p.content.value);
    }
  return out.join("\n\n").slice(0, MAX_TEXT_CHARS);
}

/** A task's state and, when completed, its answer `{ taskId, contextId, text }`. */
export function taskStatus(task: Task): RemoteTaskStatus {
  const state = STATES[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? "working";
  const said = task.status?.message ? textOf([task.status.message]) : "";
  if (state === "completed") {
    const artifacts = textOf(task.artifacts ?? []);
    return {
      taskId: task.id,
      state,
      response: { taskId: task.id, contextId: task.contextId, text: artifacts || said },
    };
  }
  return { taskId: task.id, state, ...(said ? { message: said } : {}) };
}

/** A direct answer (a `Message`, no task): the call's response at once. */
export function messageAnswer(message: Message): { contextId: string; text: string } {
  return { contextId: message.contextId, text: textOf([message]) };
}

/**
 * What a push notification's body says: the task it is about and, when it carries the task or its
 * status, that status (v1.0 `StreamResponse` JSON, or a bare v0.3 `Task`). Null fields: unknown.
 */
export function noticeOf(body: unknown): { taskId: string | null; status: RemoteTaskStatus | null } {
  if (!body || typeof body !== "object") return { taskId: null, status: null };
  try {
    const payload = StreamResponse.fromJSON(body).payload;
    if (payload?.$case === "task") return { taskId: payload.value.id, status: taskStatus(payload.value) };
    if (payload?.$case === "statusUpdate") {
      const u = payload.value;
      const state = STATES[u.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? "working";
      // A status update carries no artifacts: a completion is read from the task itself.
      return {
        taskId: u.taskId,
        status: state === "completed" ? null : taskStatus({ ...Task.fromJSON({}), id: u.taskId, status: u.status }),
      };
    }
    if (payload?.$case === "artifactUpdate") return { taskId: payload.value.taskId, status: null };
    const o = body as { id?: unknown; status?: unknown };
    if (typeof o.id === "string" && o.status) {
      const task = Task.fromJSON(body);
      return { taskId: task.id, status: taskStatus(task) };
    }
  } catch {
    // An unreadable body names no task.
  }
  return { taskId: null, status: null };
}
