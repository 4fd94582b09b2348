import { z } from "zod";

/** Tool effect classes: what recovery may do with a dispatched call that has no outcome. */
export const ToolEffect = z.enum(["read", "write", "idempotent"]);
export type ToolEffect = z.infer<typeof ToolEffect>;

export const ResponseStatus = z.enum(["ok", "error", "interrupted", "rejected"]);
export type ResponseStatus = z.infer<typeof ResponseStatus>;

export const EventContent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("thinking"), text: z.string(), signature: z.string().optional() }),
  z.object({
    type: z.literal("functionCall"),
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    /** The provider's own id for the call, used only on the wire (docs/API.md §7.6). */
    providerCallId: z.string().optional(),
  }),
  z.object({
    type: z.literal("functionResponse"),
    callId: z.string(),
    name: z.string(),
    status: ResponseStatus,
    response: z.unknown(),
  }),
  z.object({ type: z.literal("error"), code: z.string(), message: z.string() }),
]);
export type EventContent = z.infer<typeof EventContent>;

export const TokenUsage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const EventActions = z.object({
  stateDelta: z.record(z.string(), z.unknown()).optional(),
  permissionRequest: z
    .object({
      requestId: z.string(),
      callId: z.string(),
      tool: z.string(),
      args: z.unknown(),
      // docs/API.md §7.17: recorded with the request so that the pending approval carries it.
      argsDigest: z.string().optional(),
    })
    .optional(),
  permissionDecision: z
    .object({
      requestId: z.string(),
      decision: z.enum(["approve", "reject"]),
      reason: z.string().optional(),
      argsDigest: z.string().optional(),
    })
    .optional(),
  tokenUsage: TokenUsage.optional(),
  toolDispatch: z
    .object({ callId: z.string(), tool: z.string(), effect: ToolEffect, idempotencyKey: z.string() })
    .optional(),
  toolRecovery: z.object({ callId: z.string(), strategy: z.enum(["rerun", "interrupted"]) }).optional(),
  modelRequest: z
    .object({
      throughSeq: z.number(),
      checkpointId: z.string().nullable(),
      estimatedTokens: z.number(),
      requestDigest: z.string(),
      /** A compaction's own call (docs/API.md#compaction): not the turn's, not in the budget. */
      purpose: z.literal("compaction").optional(),
    })
    .optional(),
  turnClose: z.object({ reason: z.enum(["completed", "stopped", "failed"]) }).optional(),
  endInvocation: z.boolean().optional(),
});
export type EventActions = z.infer<typeof EventActions>;

export const Author = z.enum(["user", "model", "tool", "runtime"]);
export type Author = z.infer<typeof Author>;

export const Event = z.object({
  seq: z.number().int().positive(),
  sessionId: z.string(),
  turnId: z.string().optional(),
  runId: z.string().optional(),
  invocationId: z.string().optional(),
  author: Author,
  source: z.string().optional(),
  at: z.string(),
  modelVisibility: z.enum(["visible", "hidden"]),
  content: EventContent.optional(),
  actions: EventActions.optional(),
  digest: z.string(),
});
export type Event = z.infer<typeof Event>;

/** What a caller appends: the store fills in seq, sessionId, at and digest. */
export type EventDraft = Omit<Event, "seq" | "sessionId" | "at" | "digest"> & { at?: string };

/** A value that lives in the blob store; an event holds this in place of a payload over 512 KiB. */
export type BlobRef = { $blob: { sha256: string; bytes: number; mediaType: string } };

export function isBlobRef(value: unknown): value is BlobRef {
  return (
    typeof value === "object" &&
    value !== null &&
    "$blob" in value &&
    typeof (value as BlobRef).$blob?.sha256 === "string"
  );
}

/** The kind column: one word that lets projections query the log by what an event is. */
export function eventKind(e: Pick<Event, "content" | "actions">): string {
  const a = e.actions;
  if (!a) return e.content?.type ?? "runtime";
  if (a.turnClose) return "turnClose";
  if (a.modelRequest) return "modelRequest";
  if (a.toolDispatch) return "toolDispatch";
  if (a.permissionRequest) return "permissionRequest";
  if (a.permissionDecision && !e.content) return "permissionDecision";
  if (a.stateDelta && !e.content) {
    const keys = Object.keys(a.stateDelta);
    return keys.length === 1 ? `state:${keys[0]}` : "state";
  }
  return e.content?.type ?? "runtime";
}

/** The call id an event is about, if any (functionCall, functionResponse, dispatch, approval, a question). */
export function eventCallId(e: Pick<Event, "content" | "actions">): string | null {
  const c = e.content;
  if (c?.type === "functionCall" || c?.type === "functionResponse") return c.callId;
  const a = e.actions;
  const question = (a?.stateDelta?.inputRequested ?? a?.stateDelta?.inputAnswered) as { callId?: unknown } | undefined;
  if (typeof question?.callId === "string") return question.callId;
  return a?.toolDispatch?.callId ?? a?.permissionRequest?.callId ?? null;
}
