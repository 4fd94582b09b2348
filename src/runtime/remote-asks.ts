/**
 * Remote tasks that ask for input (docs/design.md#remote-calls): an A2A task's question, answered
 * by the user's next message (docs/API.md#a2a-agents), and an MCP task's own question, recorded as
 * a durable question of the session and answered by `POST /v1/sessions/:id/inputs/:requestId`
 * (docs/API.md#mcp-tasks); its answer goes to the same task at the next poll.
 */
import type { RemoteRecord } from "../projections";
import type { McpAnswer, McpQuestion } from "../tools/mcp/questions";
import { sameQuestion } from "../tools/mcp/task-input";
import type { RemoteTaskStatus } from "../tools/types";
import type { RuntimeCtx } from "./deps";
import { hidden } from "./draft-base";
import { newInputId, questionDelta, questionOfPending } from "./inputs";

/**
 * A task that asks for input (docs/API.md#a2a-agents): the question is recorded once
 * (`stateDelta.remoteInput`), and the open turn's wait says what is asked until it is answered.
 */
export function recordAsk(rt: RuntimeCtx, record: RemoteRecord, status: RemoteTaskStatus): void {
  const question = status.message ?? "the remote task asks for input";
  const current = rt.summary?.remote?.waiting.find((r) => r.callId === record.callId);
  const turn = rt.summary?.openTurn;
  if (!current || !turn || current.ask?.text === question || current.answerSeq !== undefined) return;
  rt.commit([
    hidden(
      { turnId: turn.turnId, runId: turn.runId },
      {
        actions: {
          stateDelta: {
            remoteInput: { callId: record.callId, taskId: record.taskId, waitId: record.waitId, ask: question },
          },
        },
      },
    ),
  ]);
}

/** The question the task last asked and the person's answer to it, once answered: what the next poll gives the task. */
export function taskAnswerOf(record: RemoteRecord): { question: McpQuestion; answer: McpAnswer } | null {
  const q = record.question;
  return q?.answer ? { question: questionOfPending(q.asked), answer: q.answer } : null;
}

/**
 * An MCP task's own question: recorded as a hidden `stateDelta.inputRequested { …, taskId }` (the
 * session is `waiting_input`), unless it is the question already recorded and either not answered
 * yet or answered after this poll began (`given`: the answer's seq the poll carried), so the next
 * poll sends that answer. The same question asked again although this poll gave its answer is a
 * new one.
 */
export function recordTaskQuestion(
  rt: RuntimeCtx,
  record: RemoteRecord,
  question: McpQuestion,
  given: number | undefined,
): void {
  const s = rt.summary;
  const turn = s?.openTurn;
  const current = s?.remote?.waiting.find((r) => r.callId === record.callId && r.taskId === record.taskId);
  if (!turn || turn.wait?.waitId !== record.waitId || !current) return;
  const last = current.question;
  const same = !!last && sameQuestion(questionOfPending(last.asked), question);
  if (same && (!last?.answer || last.answerSeq !== given)) return;
  const ids = {
    turnId: turn.turnId,
    runId: turn.runId,
    ...(record.invocationId ? { invocationId: record.invocationId } : {}),
  };
  rt.commit([
    hidden(ids, {
      actions: {
        stateDelta: {
          inputRequested: {
            requestId: newInputId(),
            callId: record.callId,
            server: record.target.server ?? record.tool,
            ...questionDelta(question),
            taskId: record.taskId,
          },
        },
      },
    }),
  ]);
}
