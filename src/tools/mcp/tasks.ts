/**
 * MCP tasks (docs/API.md#mcp-tasks), the pure part: which tools are called task-augmented, the task
 * a `tools/call` answered with (`CreateTaskResult`), and a task's state as the remote-call core
 * reads it (docs/design.md#remote-calls). No I/O.
 */
import type { RemoteTaskStatus } from "../types";
import { mapCallResult } from "./mapping";

/** How long a task may take in all when its server sets no `timeoutMs`: one hour. */
export const MCP_TASK_TIMEOUT_MS = 60 * 60 * 1000;

const STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/** A task's status as the server says it. */
export type McpTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
export type McpTask = { taskId: string; status: McpTaskStatus; statusMessage?: string };

/**
 * Whether the server can run `tools/call` as a task (`capabilities.tasks.requests.tools.call`);
 * only then is a tool's `execution.taskSupport` believed. Only in 2025-11-25: from 2026-07-28 tasks
 * are the Tasks extension, which the SDK does not implement (docs/API.md#mcp-tasks).
 */
export function serverRunsToolTasks(capabilities: unknown, protocolVersion = "2025-11-25"): boolean {
  if (protocolVersion >= "2026-07-28") return false;
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  const call = tasks?.requests?.tools?.call;
  return !!call && typeof call === "object";
}

/** A listed tool's `execution.taskSupport` when it asks to be (`required`) or may be (`optional`) a task. */
export function taskSupportOf(tool: unknown): "optional" | "required" | null {
  const support = (tool as { execution?: { taskSupport?: unknown } } | null)?.execution?.taskSupport;
  return support === "optional" || support === "required" ? support : null;
}

/** A task as the server described it (in a `CreateTaskResult`'s `task`, or a `tasks/get` answer); null if it is not one. */
export function taskOf(value: unknown): McpTask | null {
  const t = value as { taskId?: unknown; status?: unknown; statusMessage?: unknown } | null;
  if (!t || typeof t !== "object" || typeof t.taskId !== "string" || t.taskId === "") return null;
  if (typeof t.status !== "string" || !STATUSES.has(t.status)) return null;
  return {
    taskId: t.taskId,
    status: t.status as McpTaskStatus,
    ...(typeof t.statusMessage === "string" ? { statusMessage: t.statusMessage } : {}),
  };
}

/** The task a `tools/call` answered with (`{ task: {...} }`), or null for a direct result. */
export function createdTaskOf(answer: unknown): McpTask | null {
  const a = answer as { task?: unknown; content?: unknown } | null;
  if (!a || typeof a !== "object" || a.content !== undefined) return null;
  return taskOf(a.task);
}

/**
 * A task's state for the remote-call core: `working` and `input_required` are working (a task's
 * own questions are not asked), `failed` and `cancelled` end the call so. `completed` needs the
 * task's result (`tasks/result`), given as `result`: it is mapped as a direct `tools/call` result
 * is, an `isError` result answering the call with status `error`.
 */
export function remoteStatusOf(task: McpTask, result?: Record<string, unknown>): RemoteTaskStatus {
  const message = task.statusMessage;
  const base = { taskId: task.taskId, ...(message !== undefined ? { message } : {}) };
  switch (task.status) {
    case "working":
    case "input_required":
      return { ...base, state: "working" };
    case "failed":
      return { ...base, state: "failed" };
    case "cancelled":
      return { ...base, state: "cancelled" };
    case "completed": {
      const outcome = mapCallResult(result ?? {});
      return {
        ...base,
        state: "completed",
        response: outcome.response,
        ...(outcome.status === "error" ? { error: true as const } : {}),
      };
    }
  }
}
