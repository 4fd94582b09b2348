/**
 * A task's own question (docs/API.md#mcp-tasks): a 2025-11-25 task in `input_required` puts its
 * question (`elicitation/create`) over the stream of `tasks/result`. The question is learned and
 * the request dropped unanswered, so the server asks it again at the next `tasks/result`; once a
 * person answered it (recorded in the log), that answer is given to the same question, and the
 * task's result is awaited on the same request (up to the server's `timeoutMs`).
 */
import { canonical } from "../../log";
import type { RemoteTaskStatus } from "../types";
import type { McpConnection } from "./client";
import type { McpAnswer, McpQuestion } from "./questions";
import { type McpTask, remoteStatusOf, taskOf } from "./tasks";

/** The same question: its mode, message and schema or URL, as the server put them. */
export function sameQuestion(a: McpQuestion, b: McpQuestion): boolean {
  return canonical(a) === canonical(b);
}

export async function taskQuestion(
  connection: McpConnection,
  task: McpTask,
  signal: AbortSignal,
  answered?: { question: McpQuestion; answer: McpAnswer },
): Promise<RemoteTaskStatus> {
  const drop = new AbortController();
  let asked: McpQuestion | null = null;
  const ask = (question: McpQuestion): Promise<McpAnswer> => {
    if (answered && sameQuestion(question, answered.question)) return Promise.resolve(answered.answer);
    // Not answered yet: no answer goes back (the server keeps asking); the request is dropped.
    asked = question;
    drop.abort();
    return new Promise<McpAnswer>(() => {});
  };
  try {
    const result = await connection.taskRequest(
      "tasks/result",
      task.taskId,
      AbortSignal.any([signal, drop.signal]),
      ask,
    );
    const after = taskOf(await connection.taskRequest("tasks/get", task.taskId, signal));
    if (after?.status === "completed") return remoteStatusOf(after, result);
    return remoteStatusOf(after ?? task);
  } catch (err) {
    if (asked) return { taskId: task.taskId, state: "input-required", question: asked };
    throw err;
  }
}
