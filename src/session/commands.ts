/**
 * The session's own commands as the object's RPC methods run them, once admitted: checks that
 * belong at the boundary (thresholds, 404 before 400), then the runtime's command.
 * docs/API.md#authentication-and-errors: an unknown id is 404 before a bad body is 400.
 */
import { computeThreshold, MIN_THRESHOLD } from "../context";
import { ApiError } from "../contract";
import { type ModelConfig, mergeModel } from "../model";
import type { Session } from "../projections";
import { approvalKnown } from "../runtime";
import type { Admitted } from "./admission";
import type { Parsed } from "./reads";

export type DecisionInput = { decision: "approve" | "reject"; reason?: string; argsDigest?: string };

/** A session and its open turn, if any: where a chat stream starts. */
export type ChatTurn = { session: Session; turn: { turnId: string; startSeq: number } | null };

/** A model whose context window leaves too little room is refused (docs/API.md#sessions). */
export function checkThreshold(model: Pick<ModelConfig, "contextWindow" | "maxOutputTokens">): void {
  const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
  if (threshold < MIN_THRESHOLD)
    throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
}

export function patchSession(
  { runtime }: Admitted,
  input: { title?: string | null; model?: Partial<ModelConfig>; maxModelCallsPerTurn?: number },
): Session {
  let model: ModelConfig | undefined;
  if (input.model) {
    model = mergeModel(runtime.session().model, input.model);
    checkThreshold(model);
  }
  return runtime.patch({ title: input.title, model, maxModelCallsPerTurn: input.maxModelCallsPerTurn });
}

/** The open turn a chat stream follows (docs/API.md#chat-ai-sdk-ui-message-stream), with the session. */
export function chatTurn({ runtime }: Admitted): ChatTurn {
  const open = runtime.summary?.openTurn;
  return { session: runtime.session(), turn: open ? { turnId: open.turnId, startSeq: open.startSeq } : null };
}

/** An approval decision: the request id is looked up first, so an unknown one is 404 before a bad body is 400. */
export function decide({ runtime, sql }: Admitted, requestId: string, parsed: Parsed<DecisionInput>): Promise<Session> {
  if (!approvalKnown(sql, requestId)) throw new ApiError("not_found", "unknown approval");
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.decide({ requestId, ...parsed.value });
}

/** `POST /recovery-notice/dismiss`: 409 unless `atSeq` names the current notice. */
export function dismissRecoveryNotice({ runtime }: Admitted, parsed: Parsed<{ atSeq: number }>): Session {
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.dismissRecoveryNotice(parsed.value);
}

/** An external message: opens a turn or joins the open one, recorded as `inbox:<source>`. */
export function postInbox({ runtime }: Admitted, input: { source: string; text: string; correlationId?: string }) {
  return runtime.postMessage({
    text: input.text,
    source: `inbox:${input.source}`,
    ...(input.correlationId ? { idempotencyKey: input.correlationId } : {}),
  });
}
