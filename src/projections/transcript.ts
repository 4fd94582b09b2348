import { recordFactOf } from "../features/records/facts";
import type { Event } from "../log";

export type { TranscriptItem } from "../contract/transcript";

import type { TranscriptItem } from "../contract/transcript";

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

const FINAL_STATES = new Set(["ok", "error", "interrupted", "rejected"]);

/**
 * One page of the transcript (CONTRACT §7.20): the items whose seq is in `(after, through]`, at
 * most `limit`, where `events` are the events after `after` that were read (ascending) and
 * `later(callIds, through)` gives the events after `through` about the calls still open there
 * (their dispatch, decision and response), so a tool item shows its latest state. Items that share
 * a seq stay on one page. `next` is `through` when `events` were cut before the head. Pure.
 */
export function pageTranscript(
  events: Event[],
  limit: number,
  atHead: boolean,
  later: (callIds: string[], through: number) => Event[],
): { items: TranscriptItem[]; next?: number } {
  let items = buildTranscript(events);
  let through = events.at(-1)?.seq ?? 0;
  let cut = !atHead;
  if (items.length > limit) {
    const first = items[limit]!.seq;
    const kept = items.filter((i) => i.seq < first);
    // A single seq with more than `limit` items is returned whole rather than never.
    items = kept.length > 0 ? kept : items.filter((i) => i.seq === first);
    through = kept.length > 0 ? first - 1 : first;
    cut = true;
  }
  items = items.filter((i) => i.seq <= through);
  const open = items.filter(
    (i): i is Extract<TranscriptItem, { kind: "tool" }> => i.kind === "tool" && !FINAL_STATES.has(i.state),
  );
  if (open.length > 0) {
    const inPage = events.filter((e) => e.seq <= through);
    const extra = later(
      open.map((i) => i.callId),
      through,
    ).filter((e) => e.seq > through);
    const completed = new Map(
      buildTranscript([...inPage, ...extra])
        .filter((i): i is Extract<TranscriptItem, { kind: "tool" }> => i.kind === "tool")
        .map((i) => [i.callId, i]),
    );
    items = items.map((i) => (i.kind === "tool" ? (completed.get(i.callId) ?? i) : i));
  }
  return cut ? { items, next: through } : { items };
}
