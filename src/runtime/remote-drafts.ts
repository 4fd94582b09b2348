/**
 * Remote calls (docs/design.md#remote-calls), the pure part: the record of a sent task, the
 * call's response from a task's outcome, and a late result. Table-tested in Node.
 */
import type { EventDraft } from "../log";
import { REMOTE_ERROR_CODES, type RemoteRecord } from "../projections";
import type { RemoteTaskStatus } from "../tools/types";
import { responseDraft } from "./call-drafts";
import { hidden, type Ids } from "./draft-base";

/** States after which a task changes no more. */
const TERMINAL = new Set(["completed", "failed", "cancelled", "rejected", "timed-out"]);

export function isTerminal(state: string): boolean {
  return TERMINAL.has(state);
}

/** The `remoteTask` record of a sent call: it starts the run's wait for that task (`wait.kind: "remote"`). */
export function remoteTaskDraft(
  ids: Ids,
  record: Pick<RemoteRecord, "callId" | "tool" | "taskId" | "waitId" | "notify" | "target" | "rerun" | "deadline">,
): EventDraft {
  return hidden(ids, {
    actions: {
      stateDelta: {
        remoteTask: {
          ...record.target,
          callId: record.callId,
          tool: record.tool,
          taskId: record.taskId,
          waitId: record.waitId,
          ...(record.notify ? { notify: record.notify } : {}),
          ...(record.deadline !== undefined ? { deadline: record.deadline } : {}),
          ...(record.rerun ? { rerun: true } : {}),
        },
      },
    },
  });
}

/** The call's answer from a terminal task: the remote answer, or `error { code: remote_failed | … }`. */
export function remoteAnswer(status: RemoteTaskStatus): { status: "ok" | "error"; response: unknown } | null {
  if (!isTerminal(status.state)) return null;
  if (status.state === "completed") return { status: status.error ? "error" : "ok", response: status.response ?? null };
  const code = REMOTE_ERROR_CODES[status.state as keyof typeof REMOTE_ERROR_CODES];
  return {
    status: "error",
    response: {
      code,
      message: status.message ?? `the remote task ${status.taskId} ended ${status.state}`,
      taskId: status.taskId,
    },
  };
}

/** T2 of a remote call: its task's outcome, marked as the task's (`remoteResult`), so the wait it ends is known. */
export function remoteOutcomeDraft(
  call: { callId: string; name: string },
  ids: Ids,
  record: Pick<RemoteRecord, "taskId" | "rerun">,
  status: RemoteTaskStatus,
): EventDraft | null {
  const answer = remoteAnswer(status);
  if (!answer) return null;
  return responseDraft(call, ids, answer.status, answer.response, {
    stateDelta: { remoteResult: { taskId: record.taskId, state: status.state } },
    ...(record.rerun ? { toolRecovery: { callId: call.callId, strategy: "rerun" as const } } : {}),
  });
}

/**
 * A result for a call a close answered first (docs/API.md#a2a-agents): recorded once, hidden,
 * outside any turn, with what the task answered; it reopens nothing and overwrites nothing.
 */
export function lateResultDraft(record: Pick<RemoteRecord, "callId" | "taskId">, status: RemoteTaskStatus): EventDraft {
  const answer = remoteAnswer(status);
  return {
    author: "runtime",
    modelVisibility: "hidden",
    actions: {
      stateDelta: {
        lateResult: {
          callId: record.callId,
          taskId: record.taskId,
          state: status.state,
          ...(answer ? { response: answer.response } : {}),
        },
      },
    },
  };
}

/** The runtime's own outcome of a task whose deadline passed: the call is answered `remote_timeout`. */
export function timedOut(record: Pick<RemoteRecord, "taskId" | "deadline">): RemoteTaskStatus {
  return {
    taskId: record.taskId,
    state: "timed-out",
    message: `the remote task ${record.taskId} did not end by its deadline (${new Date(record.deadline ?? 0).toISOString()})`,
  };
}
