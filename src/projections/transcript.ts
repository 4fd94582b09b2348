import type { Event } from "../contract/event";
import { recordFactOf } from "../contract/records";
import { remoteRecordOf } from "./remote";
import { inputAnsweredOf, inputRequestedOf } from "./waits";

export type { TranscriptItem } from "../contract/transcript";

import { lateResultNote, recoveryListsOf, type TranscriptItem } from "../contract/transcript";

type ToolItem = Extract<TranscriptItem, { kind: "tool" }>;

/**
 * The UI projection (docs/API.md#reading-a-session): messages, thinking, tool calls with their state,
 * approvals, errors, recovery notices and turn ends. Runtime bookkeeping (dispatches, model
 * requests, usage) folds into the items it is about. Incremental, so the console folds each
 * event once as it arrives with this same code; `add` returns the items it created or changed
 * (a tool item is changed in place). Pure.
 */
export class TranscriptFold {
  readonly items: TranscriptItem[] = [];
  readonly #tools = new Map<string, ToolItem>();

  add(e: Event): TranscriptItem[] {
    const touched: TranscriptItem[] = [];
    const push = (item: TranscriptItem) => {
      this.items.push(item);
      touched.push(item);
    };
    const c = e.content;
    const a = e.actions ?? {};
    if (c?.type === "text" && (e.author === "user" || e.author === "model")) {
      push({
        kind: "message",
        seq: e.seq,
        role: e.author === "user" ? "user" : "assistant",
        text: c.text,
        ...(e.source ? { source: e.source } : {}),
        ...(e.turnId ? { turnId: e.turnId } : {}),
      });
    } else if (c?.type === "thinking") {
      push({ kind: "thinking", seq: e.seq, text: c.text });
    } else if (c?.type === "functionCall") {
      const item: ToolItem = {
        kind: "tool",
        seq: e.seq,
        callId: c.callId,
        tool: c.name,
        args: c.args,
        state: "pending",
      };
      this.#tools.set(c.callId, item);
      push(item);
    } else if (c?.type === "error") {
      push({ kind: "error", seq: e.seq, code: c.code, message: c.message });
    }
    if (a.permissionRequest) {
      const t = this.#tools.get(a.permissionRequest.callId);
      if (t) {
        t.state = "waiting_approval";
        t.requestId = a.permissionRequest.requestId;
        touched.push(t);
      }
    }
    if (a.permissionDecision?.decision === "approve") {
      for (const t of this.#tools.values())
        if (t.requestId === a.permissionDecision.requestId && t.state === "waiting_approval") {
          t.state = "pending";
          touched.push(t);
        }
    }
    if (a.toolDispatch) {
      const t = this.#tools.get(a.toolDispatch.callId);
      if (t && t.state !== "ok") {
        t.state = "running";
        touched.push(t);
      }
    }
    const asked = inputRequestedOf(e);
    const asking = asked ? this.#tools.get(asked.callId) : undefined;
    if (asked && asking) {
      asking.state = "waiting_input";
      asking.input = {
        requestId: asked.requestId,
        server: asked.server,
        message: asked.message,
        ...(asked.schema ? { schema: asked.schema } : {}),
        ...(asked.url ? { url: asked.url } : {}),
      };
      touched.push(asking);
    }
    const answered = inputAnsweredOf(e);
    const answering = answered ? this.#tools.get(answered.callId) : undefined;
    if (answered && answering?.input?.requestId === answered.requestId) {
      answering.input.answer = {
        action: answered.action,
        ...(answered.content ? { content: answered.content } : {}),
      };
      if (answering.state === "waiting_input") answering.state = "running";
      touched.push(answering);
    }
    if (c?.type === "functionResponse") {
      const t = this.#tools.get(c.callId);
      if (t) {
        t.state = c.status;
        t.response = c.response;
        if (a.toolRecovery) t.recovery = a.toolRecovery.strategy;
        touched.push(t);
      }
    }
    touched.push(...this.#remote(e));
    const fact = c ? null : recordFactOf(e);
    if (fact?.kind === "revision")
      push({ kind: "record", seq: e.seq, topic: fact.fact.topic, revision: fact.fact.revision });
    else if (fact?.kind === "entry")
      push({ kind: "record", seq: e.seq, topic: fact.fact.topic, entry: fact.fact.entry });
    const forkedFrom = (
      a.stateDelta?.session as { forkedFrom?: Omit<Extract<TranscriptItem, { kind: "fork" }>, "kind" | "seq"> }
    )?.forkedFrom;
    if (forkedFrom) push({ kind: "fork", seq: e.seq, ...forkedFrom });
    const notice = recoveryListsOf(e);
    if (notice) push({ kind: "recovery", seq: e.seq, ...notice });
    const late = lateResultNote(e);
    if (late) push({ kind: "note", seq: e.seq, ...late });
    if (a.turnClose) push({ kind: "turn", seq: e.seq, turnId: e.turnId, reason: a.turnClose.reason });
    return touched;
  }

  /** A remote call's task (docs/API.md#a2a-agents): recorded, asking, answered, finished. */
  #remote(e: Event): ToolItem[] {
    const d = e.actions?.stateDelta ?? {};
    const record = remoteRecordOf(e);
    const input = d.remoteInput as { callId?: string; ask?: string } | undefined;
    const reply = d.remoteReply as { callId?: string } | undefined;
    const result = d.remoteResult as { taskId?: string; state?: string } | undefined;
    const response = e.content?.type === "functionResponse" ? e.content.callId : null;
    const t = this.#tools.get(record?.callId ?? input?.callId ?? reply?.callId ?? response ?? "");
    if (!t) return [];
    const base = t.remote ? { target: t.remote.target, taskId: t.remote.taskId } : null;
    if (record) t.remote = { target: record.target, taskId: record.taskId, state: "working" };
    else if (base && typeof input?.ask === "string") t.remote = { ...base, state: "input-required", ask: input.ask };
    else if (base && reply) t.remote = { ...base, state: "working" };
    else if (base && typeof result?.state === "string") t.remote = { ...base, state: result.state };
    else return [];
    return [t];
  }
}

/** The whole transcript of `events` (ascending). */
export function buildTranscript(events: Event[]): TranscriptItem[] {
  const fold = new TranscriptFold();
  for (const e of events) fold.add(e);
  return fold.items;
}

const FINAL_STATES = new Set(["ok", "error", "interrupted", "rejected"]);

/**
 * One page of the transcript (docs/API.md §7.20): the items whose seq is in `(after, through]`, at
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
