import type { Event } from "./event";

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
