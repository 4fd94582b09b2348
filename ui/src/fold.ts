/**
 * What the console folds from the log, one event at a time as it arrives: the transcript items
 * (the server's own `TranscriptFold`, not a second implementation), and beside them what only
 * the console shows: a change counter per item, tool timings, effects and sources, and the
 * timeline's spans and marks. Pure: no DOM, no clock; tested in Node.
 */
import type { Event, ToolSource, Toolset, TranscriptItem } from "../../src/client";
import { describeRecovery, recoveryListsOf } from "../../src/contract/transcript";
import { TranscriptFold } from "../../src/projections/transcript";

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
  /** The turn it belongs to, for the per-turn trace. */
  turnId?: string;
};
export type MarkKind = "compaction" | "recovery" | "restart" | "error";
export type Mark = { kind: MarkKind; at: number; label: string; seq: number };
/** A closed turn: what its trace is asked for by. */
export type ClosedTurn = { turnId: string; seq: number; reason: string; label: string };
export type CallInfo = { tool: string; effect?: string; startedAt?: number; endedAt?: number };

export class SessionFold {
  readonly spans: Span[] = [];
  readonly marks: Mark[] = [];
  readonly turns: ClosedTurn[] = [];
  lastSeq = 0;
  readonly #transcript = new TranscriptFold();
  readonly #revs = new WeakMap<TranscriptItem, number>();
  readonly #calls = new Map<string, CallInfo>();
  readonly #open = new Map<string, Span>();
  #sources = new Map<string, ToolSource>();
  /** The A2A agents' tools of the latest recorded `stateDelta.a2aAgents`: `<name>__send` → `a2a:<name>`. */
  #agents = new Map<string, ToolSource>();
  #turn: Span | null = null;

  get items(): readonly TranscriptItem[] {
    return this.#transcript.items;
  }

  /** Bumped on every change of an item: the view's cache key. */
  rev(item: TranscriptItem): number {
    return this.#revs.get(item) ?? 0;
  }

  call(callId: string): CallInfo | undefined {
    return this.#calls.get(callId);
  }

  /** Where a tool comes from: the latest recorded toolset's entry for its name, an A2A agent's, else a built-in. */
  source(tool: string): ToolSource {
    return this.#sources.get(tool) ?? this.#agents.get(tool) ?? "builtin";
  }

  /** Folds one event; events must come in seq order, each once. Returns whether anything changed. */
  add(e: Event): boolean {
    if (e.seq <= this.lastSeq) return false;
    this.lastSeq = e.seq;
    for (const item of this.#transcript.add(e)) this.#revs.set(item, this.rev(item) + 1);
    const t = Date.parse(e.at);
    const c = e.content;
    const a = e.actions ?? {};
    const delta = a.stateDelta ?? {};

    const toolset = delta.toolset as Toolset | undefined;
    if (toolset) this.#sources = new Map(toolset.tools.map((x) => [x.name, x.source]));
    const agents = delta.a2aAgents as { agents?: { name: string }[] } | undefined;
    if (Array.isArray(agents?.agents))
      this.#agents = new Map(agents.agents.map((x) => [`${x.name}__send`, `a2a:${x.name}` as const]));
    if (c?.type === "text" && e.author === "user" && e.turnId && !this.#turn) {
      this.#turn = { kind: "turn", key: `turn:${e.turnId}`, label: c.text.slice(0, 80), start: t, seq: e.seq };
      this.#turn.turnId = e.turnId;
      this.spans.push(this.#turn);
    }
    if (c?.type === "functionCall") this.#calls.set(c.callId, { tool: c.name });
    if (c?.type === "error") this.marks.push({ kind: "error", at: t, label: `${c.code}: ${c.message}`, seq: e.seq });
    if (a.permissionRequest)
      this.#openSpan(e, {
        kind: "approval",
        key: `approval:${a.permissionRequest.requestId}`,
        label: `approval: ${a.permissionRequest.tool}`,
        start: t,
        seq: e.seq,
      });
    if (a.permissionDecision)
      this.#closeSpan(`approval:${a.permissionDecision.requestId}`, t, a.permissionDecision.decision);
    if (a.toolDispatch) {
      const call = this.#calls.get(a.toolDispatch.callId);
      if (call) Object.assign(call, { effect: a.toolDispatch.effect, startedAt: t });
      this.#openSpan(e, {
        kind: "tool",
        key: `tool:${a.toolDispatch.callId}`,
        label: a.toolDispatch.tool,
        start: t,
        seq: e.seq,
      });
    }
    if (c?.type === "functionResponse") {
      const call = this.#calls.get(c.callId);
      if (call) call.endedAt = t;
      this.#closeSpan(`tool:${c.callId}`, t, c.status);
    }
    if (a.modelRequest && e.invocationId) {
      const purpose = (a.modelRequest as { purpose?: string }).purpose;
      const label =
        purpose === "compaction" ? "compaction call" : `model call (~${a.modelRequest.estimatedTokens} tokens)`;
      if (!this.#open.has(`model:${e.invocationId}`))
        this.#openSpan(e, { kind: "model", key: `model:${e.invocationId}`, label, start: t, seq: e.seq });
      // Each attempt of the call is its own bar under it; attempt 1 starts with the request.
      if (!this.#open.has(`attempt:${e.invocationId}`))
        this.#openSpan(e, {
          kind: "attempt",
          key: `attempt:${e.invocationId}`,
          label: "attempt 1",
          start: t,
          seq: e.seq,
        });
    }
    const attempt = delta.modelAttempt as
      | { invocationId: string; attempt: number; code: string; message: string; retryAt: string }
      | undefined;
    if (attempt) {
      this.#closeSpan(`attempt:${attempt.invocationId}`, t, attempt.code);
      const retryAt = Date.parse(attempt.retryAt);
      this.#openSpan(e, {
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
    const notice = recoveryListsOf(e);
    if (notice) this.marks.push({ kind: "recovery", at: t, label: describeRecovery(notice), seq: e.seq });
    if ((delta.runStarted as { cause?: string } | undefined)?.cause === "recovery")
      this.marks.push({ kind: "restart", at: t, label: "run taken over after a restart", seq: e.seq });
    if (a.turnClose) {
      // Whatever is still open ends with the turn (stop, failure).
      for (const span of this.#open.values()) if (span.end === undefined) span.end = t;
      this.#open.clear();
      if (this.#turn) {
        this.#turn.end = t;
        this.#turn.outcome = a.turnClose.reason;
      }
      if (e.turnId)
        this.turns.push({
          turnId: e.turnId,
          seq: e.seq,
          reason: a.turnClose.reason,
          label: this.#turn?.label ?? e.turnId,
        });
      this.#turn = null;
    }
    return true;
  }

  #openSpan(e: Event, span: Span) {
    if (e.turnId) span.turnId = e.turnId;
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
 * Folds a streamed delta into the buffers keyed `${invocationId}:${kind}` (docs/API.md#live-updates-over-a-websocket):
 * a later attempt drops the failed attempt's text, an earlier one is stale, and a replay
 * (`replace`) replaces the buffer.
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
