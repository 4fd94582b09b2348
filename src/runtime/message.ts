/**
 * A user message (docs/API.md §3 Turns): a repeated idempotency key answers from the idempotency
 * table, else one `user` event opens a turn or joins the open one, and the alarm is armed.
 */
import type { CommandCtx, RuntimeCtx } from "./deps";
import { type MessageAnswer, readIdempotentAnswer } from "./idempotency";

export type MessageInput = { text: string; idempotencyKey?: string; source: string };

/** A user message: opens a turn or joins the open one (docs/API.md §3 Turns). */
export function appendMessage(
  rt: RuntimeCtx,
  input: { text: string; idempotencyKey?: string; source: string },
): { answer: MessageAnswer; opened: boolean; repeated: boolean } {
  const s = rt.require();
  // An inbox correlationId is recorded like an idempotencyKey (docs/API.md §7.16), scoped by its
  // source; the commit folds it into the table (docs/API.md#idempotency).
  if (input.idempotencyKey) {
    const prior = readIdempotentAnswer(rt.deps.sql, rt.deps.transactionSync, input.source, input.idempotencyKey);
    if (prior) return { answer: prior, opened: false, repeated: true };
  }
  const open = s.openTurn;
  const turnId = open?.turnId ?? crypto.randomUUID();
  const runId = open?.runId ?? crypto.randomUUID();
  let answer: MessageAnswer = { turnId, seq: 0 };
  rt.commit(
    [
      {
        author: "user",
        source: input.source,
        modelVisibility: "visible",
        turnId,
        runId,
        content: { type: "text", text: input.text },
        ...(input.idempotencyKey ? { actions: { stateDelta: { idempotencyKey: input.idempotencyKey } } } : {}),
      },
    ],
    ([e]) => {
      answer = { turnId, seq: e!.seq };
    },
  );
  return { answer, opened: !open, repeated: false };
}

export async function postMessage(rt: CommandCtx, input: MessageInput) {
  const { answer, opened, repeated } = appendMessage(rt, input);
  if (repeated) return answer;
  if (opened) rt.markDecided();
  // Arm the alarm before anything else can happen: the event and the alarm commit together.
  await rt.kick();
  await rt.failpoint("F0");
  return answer;
}
