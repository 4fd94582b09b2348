import type { EventDraft, Event, EventStore } from "../log";
import type { ModelConfig, ModelProvider, NeutralMessage, ToolSpec } from "../model/types";
import { buildModelMessages, type SessionSummary } from "../projections";
import type { SqlLike } from "../storage";
import { computeThreshold, estimateRequestTokens } from "./budget";

export type CheckpointView = { id: string; throughSeq: number; sourceDigest: string; summary: string };

/** What the next model call receives (CONTRACT ContextView, plus the tools and the prefix it covers). */
export type NextContext = {
  contextWindow: number;
  maxOutputTokens: number;
  threshold: number;
  estimatedTokens: number;
  checkpoint: CheckpointView | null;
  rawFromSeq: number;
  /** The log prefix the request was built from (`modelRequest.throughSeq`). */
  throughSeq: number;
  messages: NeutralMessage[];
  tools: ToolSpec[];
};

export type ContextInput = {
  summary: SessionSummary;
  model: ModelConfig;
  system: string;
  tools: ToolSpec[];
};

export type ContextDeps = { store: EventStore; sql: SqlLike };

/** Builds the next context from the log without changing anything (GET /context uses this). */
export function buildNextContext(deps: ContextDeps, input: ContextInput): NextContext {
  const { summary: s, model: m, system, tools } = input;
  const events = deps.store.readVisibleAfter(0);
  const messages = buildModelMessages({ system, summary: null, events });
  const threshold = computeThreshold(m.contextWindow, m.maxOutputTokens);
  const last = s.lastUsage;
  const since = last ? events.filter((e) => e.seq > last.throughSeq) : [];
  const estimatedTokens = estimateRequestTokens({
    reportedInputTokens: last ? last.inputTokens : null,
    charsSinceReport: since.reduce((n, e) => n + JSON.stringify(e.content ?? "").length, 0),
    charsWhole: JSON.stringify({ messages, tools }).length,
  });
  return {
    contextWindow: m.contextWindow,
    maxOutputTokens: m.maxOutputTokens,
    threshold,
    estimatedTokens,
    checkpoint: null,
    rawFromSeq: 1,
    throughSeq: s.highWater,
    messages,
    tools,
  };
}

export type PrepareDeps = ContextDeps & {
  /** Appends events through the runtime (summary, sockets), synchronously. */
  commit: (drafts: EventDraft[]) => Event[];
  provider: ModelProvider;
  signal: AbortSignal;
  base: { turnId: string; runId: string };
};

/**
 * The context for the next model call, compacting first when the estimate passes the
 * threshold. A checkpoint is committed to the log before it is used.
 */
export async function prepareContext(deps: PrepareDeps, input: ContextInput): Promise<NextContext> {
  return buildNextContext(deps, input);
}
