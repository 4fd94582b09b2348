/**
 * Draft builders for every event the runtime appends. Pure: ids, clock values and the plan are
 * passed in, so each is table-tested in Node with hand-written logs.
 */
import { requestDigest as viewRequestDigest } from "../context/request-digest";
import { argsDigest } from "../contract/digest";
import { type EventDraft, type ResponseStatus, sha256Hex } from "../log";
import type { FinishReason, ModelPart, NeutralMessage, ToolSpec } from "../model/types";
import { type CallState, INTERRUPTED_DIRECTIVE, type RecoveryPlan, type RunState } from "../projections";
import { idempotencyKeyFor } from "../tools/keys";
import type { AttemptFailure } from "./retry";

export type Base = { turnId: string; runId: string };
export type Ids = Base & { invocationId?: string };

/** CONTRACT §7.10: the visible runtime text before each continuation of an answer cut at `length`. */
export const CONTINUE_TEXT = "Continue exactly where you stopped.";
export const CONTINUE_SOURCE = "runtime:continue";

const hidden = (ids: Ids, rest: Pick<EventDraft, "actions" | "content">): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  ...ids,
  ...rest,
});

/** The `tool` event answering a call (T2, or the answer recovery, stop or a rejection gives it). */
export function responseDraft(
  call: { callId: string; name: string },
  ids: Ids,
  status: ResponseStatus,
  response: unknown,
  actions?: EventDraft["actions"],
): EventDraft {
  return {
    author: "tool",
    modelVisibility: "visible",
    ...ids,
    content: { type: "functionResponse", callId: call.callId, name: call.name, status, response },
    ...(actions ? { actions } : {}),
  };
}

export function rejectedDraft(call: { callId: string; name: string }, ids: Ids, response: unknown): EventDraft {
  return responseDraft(call, ids, "rejected", response);
}

const CLOSED_WHILE_RUNNING = {
  stopped: "The user stopped the turn while this call was running.",
  failed: "The turn failed while this call was running.",
};

/** An `interrupted` outcome: after a crash (with `toolRecovery` and the directive), a stop or a failure. */
export function interruptedDraft(call: CallState, base: Base, why: "recovery" | "stopped" | "failed"): EventDraft {
  const ids = { ...base, invocationId: call.invocationId };
  return why !== "recovery"
    ? responseDraft(call, ids, "interrupted", { reason: why, message: CLOSED_WHILE_RUNNING[why] })
    : responseDraft(
        call,
        ids,
        "interrupted",
        { interrupted: true, message: INTERRUPTED_DIRECTIVE },
        { toolRecovery: { callId: call.callId, strategy: "interrupted" } },
      );
}

export function dispatchDraft(
  call: CallState,
  base: Base,
  effect: "read" | "write" | "idempotent",
  idempotencyKey: string,
): EventDraft {
  return hidden(
    { ...base, invocationId: call.invocationId },
    { actions: { toolDispatch: { callId: call.callId, tool: call.name, effect, idempotencyKey } } },
  );
}

/**
 * The idempotency key a call runs with: the one its dispatch recorded (a re-run sends it again,
 * whatever format an older log used), else the key of docs/API.md#tools.
 */
export function callIdempotencyKey(call: Pick<CallState, "callId" | "dispatch">, sessionId: string): string {
  return call.dispatch?.idempotencyKey ?? idempotencyKeyFor(sessionId, call.callId);
}

/** Unknown tool or bad arguments: a read dispatch (unless there is one) and an error the model reads. */
export function invalidCallDrafts(
  call: CallState,
  base: Base,
  idempotencyKey: string,
  issues: unknown[],
): EventDraft[] {
  const ids = { ...base, invocationId: call.invocationId };
  return [
    ...(call.dispatch ? [] : [dispatchDraft(call, base, "read", idempotencyKey)]),
    responseDraft(call, ids, "error", { code: "invalid_arguments", issues }),
  ];
}

/** A call to a tool of an MCP server the turn's toolset left out: `tool_unavailable` (docs/API.md#mcp-servers). */
export function unavailableCallDrafts(
  call: CallState,
  base: Base,
  idempotencyKey: string,
  server: string,
): EventDraft[] {
  const ids = { ...base, invocationId: call.invocationId };
  return [
    ...(call.dispatch ? [] : [dispatchDraft(call, base, "write", idempotencyKey)]),
    responseDraft(call, ids, "error", {
      code: "tool_unavailable",
      message: `MCP server ${server} could not be listed for this turn`,
    }),
  ];
}

/**
 * CONTRACT §7.17: the digest a human decision is bound to, over the args exactly as in the
 * `functionCall` event (before schema defaults); for args kept as a `$blob`, over its bytes,
 * which is the blob's own sha256.
 */
export function argsDigestOf(args: unknown): string {
  return argsDigest(args, sha256Hex);
}

/** Approval request ids: derived from the turn and call, `apr_` + 24 hex. */
export function approvalRequestId(turnId: string, callId: string): string {
  return `apr_${sha256Hex(`${turnId}:${callId}`).slice(0, 24)}`;
}

export function permissionRequestDraft(call: CallState, base: Base, args: unknown): EventDraft {
  return hidden(
    { ...base, invocationId: call.invocationId },
    {
      actions: {
        permissionRequest: {
          requestId: approvalRequestId(base.turnId, call.callId),
          callId: call.callId,
          tool: call.name,
          args,
          argsDigest: argsDigestOf(call.args),
        },
      },
    },
  );
}

export function closeDraft(base: Base, reason: "completed" | "stopped" | "failed"): EventDraft {
  return hidden(base, { actions: { turnClose: { reason } } });
}

export type RecordedRequestInput = {
  throughSeq: number;
  checkpointId: string | null;
  estimatedTokens: number;
  requestDigest: string;
  purpose?: "compaction";
};

/** CONTRACT §7.7: sha256 hex of the canonical `{ messages, tools }`, the tools sorted by name. */
export function requestDigest(request: { messages: NeutralMessage[]; tools: ToolSpec[] }): string {
  // The request view hashed a request it built as its bytes were added (docs/design.md#context).
  return viewRequestDigest(request);
}

export function modelRequestDraft(ids: Ids & { invocationId: string }, request: RecordedRequestInput): EventDraft {
  return hidden(ids, { actions: { modelRequest: request } });
}

/** CONTRACT §7.10: the visible runtime text a continuation starts with. */
export function continueDraft(base: Base): EventDraft {
  return {
    author: "runtime",
    source: CONTINUE_SOURCE,
    modelVisibility: "visible",
    ...base,
    content: { type: "text", text: CONTINUE_TEXT },
  };
}

/** A failed attempt that will be retried (CONTRACT §7.8); `retryAt` (epoch ms) is recorded as ISO-8601, like `at`. */
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

/**
 * A takeover (CONTRACT §7.11, §7.12), as one block: `runStarted` under the new run, the
 * `interrupted` answers, the notice (its `atSeq` is its own seq) and, for a re-issued call, the
 * lost attempt with code `restart`. Empty when the plan has nothing to record.
 */
export function recoveryDrafts(
  plan: RecoveryPlan,
  state: RunState,
  input: { turnId: string; runId: string; highWater: number; now: number },
): EventDraft[] {
  const reissued = plan.reissue ? [plan.reissue.invocationId] : [];
  if (plan.closed || (plan.rerun.length === 0 && plan.interrupted.length === 0 && reissued.length === 0)) return [];
  const base = { turnId: input.turnId, runId: input.runId };
  const drafts: EventDraft[] = [
    hidden(base, { actions: { stateDelta: { runStarted: { runId: input.runId, cause: "recovery" } } } }),
  ];
  for (const callId of plan.interrupted) {
    const call = state.calls.find((c) => c.callId === callId);
    if (call) drafts.push(interruptedDraft(call, base, "recovery"));
  }
  const atSeq = input.highWater + drafts.length + 1;
  drafts.push(
    hidden(base, {
      actions: {
        stateDelta: { recoveryNotice: { atSeq, rerun: plan.rerun, needsReview: plan.interrupted, reissued } },
      },
    }),
  );
  if (plan.reissue)
    drafts.push(
      modelAttemptDraft(
        { ...base, invocationId: plan.reissue.invocationId },
        plan.reissue.attempt,
        { code: "restart", message: "the object restarted while this call was under way; it is issued again" },
        input.now,
      ),
    );
  return drafts;
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

/** CONTRACT §7.6: a call id unique in the session, minted from the invocation and the call's place in it. */
export function mintCallId(invocationId: string, index: number): string {
  return `call_${sha256Hex(`${invocationId}:${index}`).slice(0, 24)}`;
}

/**
 * The answer's events: thinking, text, calls (runtime call ids, the provider's kept as
 * `providerCallId`); the last carries `tokenUsage`, `finishReason` and, for the answer after
 * the last allowed continuation, `truncated` (CONTRACT §3, §7.9, §7.10).
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
