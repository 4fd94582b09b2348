/**
 * The console's incremental fold: each event is folded once, as it arrives, into the
 * transcript items (the same items and seqs as the server's `buildTranscript`, CONTRACT §2)
 * and the timeline's spans. An item that changes gets a new `rev`, so the view re-renders
 * only what changed. Pure: no DOM, no clock; tested in Node.
 */
import type { Event, TranscriptItem } from "../../src/client";

type ToolItem = Extract<TranscriptItem, { kind: "tool" }>;

/** A transcript item with what the view needs beyond the projection. */
export type ShownItem = TranscriptItem & {
  /** Bumped on every change: the view's cache key. */
  rev: number;
  /** ISO time of the item's first event. */
  at: string;
  /** Tool calls: when dispatched and when answered (ms since epoch). */
  startedAt?: number;
  endedAt?: number;
};

export type SpanKind = "turn" | "model" | "attempt" | "tool" | "approval";
export type Span = {
  kind: SpanKind;
  key: string;
  label: string;
  start: number;
  /** Undefined while it is still open. */
  end?: number;
  /** Tool outcome, approval decision, attempt error code, turn close reason. */
  outcome?: string;
  seq: number;
};
export type MarkKind = "compaction" | "recovery" | "restart" | "error";
export type Mark = { kind: MarkKind; at: number; label: string; seq: number };

export class SessionFold {
  readonly items: ShownItem[] = [];
  readonly spans: Span[] = [];
  readonly marks: Mark[] = [];
  /** Every event folded, in order (the raw log view pages its own copy from the server). */
  lastSeq = 0;
  #tools = new Map<string, ShownItem & ToolItem>();
  #calls = new Map<string, string>();
  #open = new Map<string, Span>();
  #turn: Span | null = null;

  /** Folds one event; events must come in seq order, each once. Returns whether anything changed. */
  add(e: Event): boolean {
    if (e.seq <= this.lastSeq) return false;
    this.lastSeq = e.seq;
    const t = Date.parse(e.at);
    const c = e.content;
    const a = e.actions ?? {};
    const delta = a.stateDelta ?? {};
    const push = (item: TranscriptItem) => this.items.push({ ...item, rev: 0, at: e.at } as ShownItem);

    if (c?.type === "text" && (e.author === "user" || e.author === "model")) {
      push({
        kind: "message",
        seq: e.seq,
        role: e.author === "user" ? "user" : "assistant",
        text: c.text,
        ...(e.source ? { source: e.source } : {}),
        ...(e.turnId ? { turnId: e.turnId } : {}),
      });
      if (e.author === "user" && e.turnId && !this.#turn) {
        this.#turn = { kind: "turn", key: `turn:${e.turnId}`, label: c.text.slice(0, 80), start: t, seq: e.seq };
        this.spans.push(this.#turn);
      }
    } else if (c?.type === "thinking") {
      push({ kind: "thinking", seq: e.seq, text: c.text });
    } else if (c?.type === "functionCall") {
      const item = {
        kind: "tool" as const,
        seq: e.seq,
        callId: c.callId,
        tool: c.name,
        args: c.args,
        state: "pending" as const,
        rev: 0,
        at: e.at,
      };
      this.#tools.set(c.callId, item);
      this.#calls.set(c.callId, c.name);
      this.items.push(item);
    } else if (c?.type === "error") {
      push({ kind: "error", seq: e.seq, code: c.code, message: c.message });
      this.marks.push({ kind: "error", at: t, label: `${c.code}: ${c.message}`, seq: e.seq });
    }

    if (a.permissionRequest) {
      const item = this.#tools.get(a.permissionRequest.callId);
      if (item) this.#change(item, { state: "waiting_approval", requestId: a.permissionRequest.requestId });
      this.#openSpan({
        kind: "approval",
        key: `approval:${a.permissionRequest.requestId}`,
        label: `approval: ${a.permissionRequest.tool}`,
        start: t,
        seq: e.seq,
      });
    }
    if (a.permissionDecision) {
      const id = a.permissionDecision.requestId;
      if (a.permissionDecision.decision === "approve")
        for (const item of this.#tools.values())
          if (item.requestId === id && item.state === "waiting_approval") this.#change(item, { state: "pending" });
      this.#closeSpan(`approval:${id}`, t, a.permissionDecision.decision);
    }
    if (a.toolDispatch) {
      const item = this.#tools.get(a.toolDispatch.callId);
      if (item && item.state !== "ok") this.#change(item, { state: "running", startedAt: t });
      this.#openSpan({
        kind: "tool",
        key: `tool:${a.toolDispatch.callId}`,
        label: a.toolDispatch.tool,
        start: t,
        seq: e.seq,
      });
    }
    if (c?.type === "functionResponse") {
      const item = this.#tools.get(c.callId);
      if (item)
        this.#change(item, {
          state: c.status,
          response: c.response,
          endedAt: t,
          ...(a.toolRecovery ? { recovery: a.toolRecovery.strategy } : {}),
        });
      this.#closeSpan(`tool:${c.callId}`, t, c.status);
    }

    if (a.modelRequest && e.invocationId) {
      const purpose = (a.modelRequest as { purpose?: string }).purpose;
      const key = `model:${e.invocationId}`;
      if (!this.#open.has(key))
        this.#openSpan({
          kind: "model",
          key,
          label:
            purpose === "compaction" ? "compaction call" : `model call (~${a.modelRequest.estimatedTokens} tokens)`,
          start: t,
          seq: e.seq,
        });
      // Each attempt of the call is its own bar under it; attempt 1 starts with the request.
      if (!this.#open.has(`attempt:${e.invocationId}`))
        this.#openSpan({ kind: "attempt", key: `attempt:${e.invocationId}`, label: "attempt 1", start: t, seq: e.seq });
    }
    const attempt = delta.modelAttempt as
      | { invocationId: string; attempt: number; code: string; message: string; retryAt: string }
      | undefined;
    if (attempt) {
      this.#closeSpan(`attempt:${attempt.invocationId}`, t, attempt.code);
      const retryAt = Date.parse(attempt.retryAt);
      this.#openSpan({
        kind: "attempt",
        key: `attempt:${attempt.invocationId}`,
        label: `attempt ${attempt.attempt + 1}`,
        start: Number.isFinite(retryAt) ? Math.max(t, retryAt) : t,
        seq: e.seq,
      });
      if (attempt.code === "restart")
        this.marks.push({ kind: "restart", at: t, label: "restart: call re-issued", seq: e.seq });
    }
    if (a.tokenUsage && e.invocationId) {
      this.#closeSpan(`attempt:${e.invocationId}`, t, "ok");
      this.#closeSpan(`model:${e.invocationId}`, t, String(delta.finishReason ?? "answered"));
    }
    if (delta.checkpoint) {
      const cp = delta.checkpoint as { throughSeq?: number };
      this.marks.push({
        kind: "compaction",
        at: t,
        label: `checkpoint through seq ${cp.throughSeq ?? "?"}`,
        seq: e.seq,
      });
    }
    const notice = delta.recoveryNotice as { rerun: string[]; needsReview: string[] } | undefined;
    if (notice) {
      push({ kind: "recovery", seq: e.seq, rerun: notice.rerun, needsReview: notice.needsReview });
      this.marks.push({
        kind: "recovery",
        at: t,
        label: `recovery: ${notice.rerun.length} re-run, ${notice.needsReview.length} need review`,
        seq: e.seq,
      });
    }
    const started = delta.runStarted as { cause?: string } | undefined;
    if (started?.cause === "recovery")
      this.marks.push({ kind: "restart", at: t, label: "run taken over after a restart", seq: e.seq });
    if (a.turnClose) {
      push({ kind: "turn", seq: e.seq, turnId: e.turnId, reason: a.turnClose.reason });
      // Whatever is still open ends with the turn (stop, failure).
      for (const span of this.#open.values()) if (span.end === undefined) span.end = t;
      this.#open.clear();
      if (this.#turn) {
        this.#turn.end = t;
        this.#turn.outcome = a.turnClose.reason;
        this.#turn = null;
      }
    }
    return true;
  }

  /** The tool name of a call, for the recovery banner. */
  toolOf(callId: string): string | undefined {
    return this.#calls.get(callId);
  }

  #change(item: ShownItem & ToolItem, patch: Partial<ShownItem & ToolItem>) {
    Object.assign(item, patch);
    item.rev++;
  }

  #openSpan(span: Span) {
    this.spans.push(span);
    this.#open.set(span.key, span);
  }

  #closeSpan(key: string, at: number, outcome: string) {
    const span = this.#open.get(key);
    if (!span) return;
    span.end = Math.max(span.start, at);
    span.outcome = outcome;
    this.#open.delete(key);
  }
}

export type Streamed = { invocationId: string; attempt: number; kind: "text" | "thinking"; text: string };
export type DeltaFrame = {
  invocationId: string;
  attempt?: number;
  kind: "text" | "thinking";
  text: string;
  replace?: true;
};

/**
 * Folds a streamed delta into the buffers keyed `${invocationId}:${kind}` (CONTRACT §4,
 * §7.18): a later attempt drops the failed attempt's text, an earlier one is stale, and a
 * replay (`replace`) replaces the buffer.
 */
export function applyDelta(streaming: Map<string, Streamed>, f: DeltaFrame): void {
  const key = `${f.invocationId}:${f.kind}`;
  const held = streaming.get(key);
  const attempt = f.attempt ?? 1;
  if (held && attempt < held.attempt) return;
  if (f.replace || !held || attempt > held.attempt) {
    for (const [k, s] of streaming) if (s.invocationId === f.invocationId && s.attempt < attempt) streaming.delete(k);
    streaming.set(key, { invocationId: f.invocationId, attempt, kind: f.kind, text: f.text });
  } else held.text += f.text;
}

/** A duration for people: 850 ms, 12.3 s, 4 min 05 s, 2 h 10 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000)
    return `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

/** Size of a value as the card shows it: UTF-8 bytes of its JSON. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
