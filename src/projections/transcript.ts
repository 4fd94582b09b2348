import type { Event } from "../log";
import { recordFactOf } from "./records";

export type TranscriptItem =
  | { kind: "message"; seq: number; role: "user" | "assistant"; text: string; source?: string; turnId?: string }
  | { kind: "thinking"; seq: number; text: string }
  | {
      kind: "tool";
      seq: number;
      callId: string;
      tool: string;
      args: unknown;
      state: "pending" | "waiting_approval" | "running" | "ok" | "error" | "interrupted" | "rejected";
      response?: unknown;
      recovery?: "rerun" | "interrupted";
      requestId?: string;
    }
  | { kind: "error"; seq: number; code: string; message: string }
  | { kind: "recovery"; seq: number; rerun: string[]; needsReview: string[] }
  | { kind: "turn"; seq: number; turnId?: string; reason: "completed" | "stopped" | "failed" }
  /** A work-record revision or entry written over HTTP (the agent's own show as its tool calls). */
  | { kind: "record"; seq: number; topic: string; revision?: number; entry?: number }
  /** Seq 1 of a fork: where it came from. */
  | { kind: "fork"; seq: number; sessionId: string; throughSeq: number; digest: string };

/**
 * The UI projection (CONTRACT §2 transcript): messages, thinking, tool calls with their
 * state, approvals, errors, recovery notices and turn ends. Runtime bookkeeping
 * (dispatches, model requests, usage) folds into the items it is about. Pure.
 */
export function buildTranscript(events: Event[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const tools = new Map<string, Extract<TranscriptItem, { kind: "tool" }>>();
  for (const e of events) {
    const c = e.content;
    const a = e.actions ?? {};
    if (c?.type === "text" && (e.author === "user" || e.author === "model")) {
      items.push({
        kind: "message",
        seq: e.seq,
        role: e.author === "user" ? "user" : "assistant",
        text: c.text,
        ...(e.source ? { source: e.source } : {}),
        ...(e.turnId ? { turnId: e.turnId } : {}),
      });
    } else if (c?.type === "thinking") {
      items.push({ kind: "thinking", seq: e.seq, text: c.text });
    } else if (c?.type === "functionCall") {
      const item = {
        kind: "tool" as const,
        seq: e.seq,
        callId: c.callId,
        tool: c.name,
        args: c.args,
        state: "pending" as const,
      };
      tools.set(c.callId, item);
      items.push(item);
    } else if (c?.type === "error") {
      items.push({ kind: "error", seq: e.seq, code: c.code, message: c.message });
    }
    if (a.permissionRequest) {
      const t = tools.get(a.permissionRequest.callId);
      if (t) {
        t.state = "waiting_approval";
        t.requestId = a.permissionRequest.requestId;
      }
    }
    if (a.permissionDecision?.decision === "approve") {
      for (const t of tools.values())
        if (t.requestId === a.permissionDecision.requestId && t.state === "waiting_approval") t.state = "pending";
    }
    if (a.toolDispatch) {
      const t = tools.get(a.toolDispatch.callId);
      if (t && t.state !== "ok") t.state = "running";
    }
    if (c?.type === "functionResponse") {
      const t = tools.get(c.callId);
      if (t) {
        t.state = c.status;
        t.response = c.response;
        if (a.toolRecovery) t.recovery = a.toolRecovery.strategy;
      }
    }
    const fact = c ? null : recordFactOf(e);
    if (fact?.kind === "revision")
      items.push({ kind: "record", seq: e.seq, topic: fact.fact.topic, revision: fact.fact.revision });
    else if (fact?.kind === "entry")
      items.push({ kind: "record", seq: e.seq, topic: fact.fact.topic, entry: fact.fact.entry });
    const forkedFrom = (
      a.stateDelta?.session as { forkedFrom?: Omit<Extract<TranscriptItem, { kind: "fork" }>, "kind" | "seq"> }
    )?.forkedFrom;
    if (forkedFrom) items.push({ kind: "fork", seq: e.seq, ...forkedFrom });
    const notice = a.stateDelta?.recoveryNotice as { rerun: string[]; needsReview: string[] } | undefined;
    if (notice) items.push({ kind: "recovery", seq: e.seq, rerun: notice.rerun, needsReview: notice.needsReview });
    if (a.turnClose) items.push({ kind: "turn", seq: e.seq, turnId: e.turnId, reason: a.turnClose.reason });
  }
  return items;
}
