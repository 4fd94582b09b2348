/**
 * Drafts of a model call: the recorded request, a continuation, a failed attempt, and the
 * answer with the calls it makes. Pure.
 */
import { requestDigest as viewRequestDigest } from "../context/request-digest";
import type { EventDraft } from "../contract/event";
import { sha256Hex } from "../log/hash";
import type { FinishReason, ModelPart, NeutralMessage, ToolSpec } from "../model/types";
import { type Base, hidden, type Ids } from "./draft-base";
import type { AttemptFailure } from "./retry";

/** docs/API.md#model-calls-that-fail: the visible runtime text before each continuation of an answer cut at `length`. */
export const CONTINUE_TEXT = "Continue exactly where you stopped.";
export const CONTINUE_SOURCE = "runtime:continue";

export type RecordedRequestInput = {
  throughSeq: number;
  checkpointId: string | null;
  estimatedTokens: number;
  requestDigest: string;
  purpose?: "compaction";
};

/** docs/API.md §7.7: sha256 hex of the canonical `{ messages, tools }`, the tools sorted by name. */
export function requestDigest(request: { messages: NeutralMessage[]; tools: ToolSpec[] }): string {
  // The request view hashed a request it built as its bytes were added (docs/design.md#context).
  return viewRequestDigest(request);
}

export function modelRequestDraft(ids: Ids & { invocationId: string }, request: RecordedRequestInput): EventDraft {
  return hidden(ids, { actions: { modelRequest: request } });
}

/** docs/API.md §7.10: the visible runtime text a continuation starts with. */
export function continueDraft(base: Base): EventDraft {
  return {
    author: "runtime",
    source: CONTINUE_SOURCE,
    modelVisibility: "visible",
    ...base,
    content: { type: "text", text: CONTINUE_TEXT },
  };
}

/** A failed attempt that will be retried (docs/API.md §7.8); `retryAt` (epoch ms) is recorded as ISO-8601, like `at`. */
export function modelAttemptDraft(
  ids: Base & { invocationId: string },
  attempt: number,
  failure: Pick<AttemptFailure, "code" | "message">,
  retryAt: number,
): EventDraft {
  return hidden(ids, {
    actions: {
      stateDelta: {
        modelAttempt: {
          invocationId: ids.invocationId,
          attempt,
          code: failure.code,
          message: failure.message,
          retryAt: new Date(retryAt).toISOString(),
        },
      },
    },
  });
}

/** A model answer gathered from the stream, committed as a whole once it is complete. */
export type ModelAnswer = {
  text: string;
  thinking: string;
  signature?: string;
  calls: Extract<ModelPart, { type: "tool-call" }>[];
  usage: Extract<ModelPart, { type: "usage" }> | null;
  finishReason: FinishReason | null;
};

/** docs/API.md §7.6: a call id unique in the session, minted from the invocation and the call's place in it. */
export function mintCallId(invocationId: string, index: number): string {
  return `call_${sha256Hex(`${invocationId}:${index}`).slice(0, 24)}`;
}

/**
 * The answer's events: thinking, text, calls (runtime call ids, the provider's kept as
 * `providerCallId`); the last carries `tokenUsage`, `finishReason` and, for the answer after
 * the last allowed continuation, `truncated` (docs/API.md §3, §7.9, §7.10).
 */
export function answerDrafts(
  answer: ModelAnswer,
  ids: Base & { invocationId: string },
  opts: { lengthStreak: number; maxContinuations: number },
): EventDraft[] {
  const drafts: EventDraft[] = [];
  const model = { author: "model" as const, modelVisibility: "visible" as const, ...ids };
  if (answer.thinking)
    drafts.push({
      ...model,
      content: {
        type: "thinking",
        text: answer.thinking,
        ...(answer.signature ? { signature: answer.signature } : {}),
      },
    });
  if (answer.text || answer.calls.length === 0) drafts.push({ ...model, content: { type: "text", text: answer.text } });
  answer.calls.forEach((c, i) => {
    const content = {
      type: "functionCall" as const,
      callId: mintCallId(ids.invocationId, i),
      name: c.name,
      args: c.args ?? {},
      ...(c.callId ? { providerCallId: c.callId } : {}),
    };
    drafts.push({ ...model, content });
  });
  const finishReason = answer.finishReason ?? "other";
  const truncated =
    finishReason === "length" && answer.calls.length === 0 && opts.lengthStreak >= opts.maxContinuations;
  const last = drafts[drafts.length - 1]!;
  last.actions = {
    ...(answer.usage
      ? {
          tokenUsage: {
            inputTokens: answer.usage.inputTokens,
            outputTokens: answer.usage.outputTokens,
            ...(answer.usage.cachedInputTokens !== undefined
              ? { cachedInputTokens: answer.usage.cachedInputTokens }
              : {}),
          },
        }
      : {}),
    stateDelta: { finishReason, ...(truncated ? { truncated: true } : {}) },
    ...(answer.calls.length === 0 ? { endInvocation: true } : {}),
  };
  return drafts;
}
