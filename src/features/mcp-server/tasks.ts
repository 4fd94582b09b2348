/**
 * Tasks of the MCP Tasks extension (`io.modelcontextprotocol/tasks`) as highwater turns
 * (docs/API.md#a-session-as-an-mcp-server): the task id names the session, the seq of the message
 * that opened or joined the turn, and the turn; a task's state is a `TaskState` read from the log.
 * Pure: no I/O.
 */
import { canonical } from "../../contract/canonical";
import type { TaskState } from "./task-state";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** How often a client is asked to poll `tasks/get`. */
export const POLL_INTERVAL_MS = 1000;

export type TaskRef = { sessionId: string; seq: number; turnId: string };

const TASK_ID = /^([0-9a-f]{64})\.([1-9][0-9]{0,15})\.([A-Za-z0-9_:-]{1,128})$/;

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

/** The `CallToolResult` of a closed, completed turn: its last answer. */
export function answerResult(ref: TaskRef, answer: string) {
  return {
    content: [{ type: "text" as const, text: answer }],
    structuredContent: { sessionId: ref.sessionId, turnId: ref.turnId, status: "completed", answer },
    isError: false,
  };
}

/** The form a client shows for what a waiting turn asks; its key is unique over the task's life. */
function inputRequestsOf(state: Extract<TaskState, { state: "input_required" }>) {
  const out: Record<string, unknown> = {};
  for (const a of state.asked) {
    if (a.kind === "approval")
      out[`approval:${a.requestId}`] = {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: `Approve the call of ${a.tool} with ${canonical(a.args)}? Decide with the tool decide_approval (requestId ${a.requestId}).`,
          requestedSchema: {
            type: "object",
            properties: {
              decision: { type: "string", enum: ["approve", "reject"] },
              reason: { type: "string" },
            },
            required: ["decision"],
          },
          _meta: { "io.highwater/approval": a },
        },
      };
    else
      out[`wait:${a.waitId}`] = {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: `The session waits${a.reason ? ` for ${a.reason}` : ""} (${a.waitKind}); resume it with POST /v1/sessions/:id/runs/${a.runId}/resume.`,
          requestedSchema: { type: "object", properties: { text: { type: "string" } } },
          _meta: { "io.highwater/wait": a },
        },
      };
  }
  return out;
}

function statusMessageOf(state: TaskState): string {
  switch (state.state) {
    case "working":
      return "the turn is running";
    case "input_required":
      return state.asked
        .map((a) =>
          a.kind === "approval" ? `approval ${a.requestId} of ${a.tool}` : `waiting: ${a.reason ?? a.waitKind}`,
        )
        .join("; ");
    case "completed":
      return "the turn completed";
    case "cancelled":
      return "the turn was stopped";
    case "failed":
      return `${state.code}: ${state.message}`;
  }
}

/** The extension's `DetailedTask` (without `resultType`, which the caller adds). */
export function detailedTask(ref: TaskRef, state: TaskState) {
  const task = {
    taskId: taskIdOf(ref),
    status: state.state,
    statusMessage: statusMessageOf(state),
    createdAt: state.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  if (state.state === "input_required") return { ...task, inputRequests: inputRequestsOf(state) };
  if (state.state === "completed") return { ...task, result: answerResult(ref, state.answer) };
  // The turn failed inside the runtime: the task carries it as an internal JSON-RPC error.
  if (state.state === "failed") return { ...task, error: { code: -32603, message: `${state.code}: ${state.message}` } };
  return task;
}

/** Whether the request named the extension in its per-request client capabilities. */
export function declaresTasks(envelope: unknown): boolean {
  const caps = (envelope as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/clientCapabilities"];
  const ext = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return !!ext && typeof ext === "object" && TASKS_EXTENSION in ext;
}
