/**
 * Drafts of a tool call's life: its dispatch, its approval request, and the `tool` event that
 * answers it (a result, an error, a rejection or an interruption). Pure.
 */
import { argsDigest } from "../contract/digest";
import type { EventDraft, ResponseStatus } from "../contract/event";
import { sha256Hex } from "../log/hash";
import { INTERRUPTED_DIRECTIVE } from "../projections/recovery-plan";
import type { CallState } from "../projections/run-state";
import { idempotencyKeyFor } from "../tools/keys";
import { type Base, hidden, type Ids } from "./draft-base";

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
 * docs/API.md §7.17: the digest a human decision is bound to, over the args exactly as in the
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
