import { type Event, type EventDraft, type EventStore, isBlobRef } from "../log";
import type { ModelConfig, ModelProvider, NeutralMessage, ToolSpec } from "../model/types";
import { buildModelMessages, type OffloadMark, type SessionSummary } from "../projections";
import type { SqlLike } from "../storage";
import { cutUtf8, makePlaceholder, PREVIEW_BYTES, serializeToolResponse } from "../tools";
import { computeThreshold, estimateRequestTokens } from "./budget";
import {
  type CheckpointMethod,
  type CheckpointPayload,
  type CheckpointRecord,
  checkpointDraft,
  loadLatestCheckpoint,
  type PlaceholderMark,
  writeCheckpointRow,
} from "./checkpoint";
import { buildExtractSummary } from "./extract";
import {
  buildSummaryRequest,
  MAX_SUMMARY_PIECES,
  renderEvents,
  requestTokens,
  splitPieces,
  summarisePieces,
} from "./summarize";
import {
  eventCost,
  FORCED_PLACEHOLDER_BYTES,
  OLDER_RESULT_PLACEHOLDER_BYTES,
  placeholderCandidates,
  RECENT_RAW_RESULTS,
  selectWaterline,
  tailStarts,
} from "./waterline";

/** The checkpoint as `GET /context` shows it (CONTRACT ContextView). */
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

/** A context that cannot be brought under the threshold even with everything summarised. */
export class ContextOverflowError extends Error {
  readonly code = "context_overflow";
}

/** Share of what the system prompt and tools leave that a summary may take. */
const SUMMARY_SHARE = 0.25;
/** Share kept raw as the recent working set at an ordinary compaction. */
const WORKING_SET_SHARE = 0.35;
const MIN_SUMMARY_TOKENS = 150;
const MAX_SUMMARY_TOKENS = 4000;
/** Tokens of the checkpoint message's framing around the summary. */
const CHECKPOINT_FRAMING_TOKENS = 30;
/** Escalation: 0 ordinary, 1 every result over 1 KiB becomes a placeholder, 2 everything summarised. */
const COMPACTION_LEVELS = 3;

export type CompactionBudget = {
  /** Tokens of the parts every request has: system prompt, tools, checkpoint framing. */
  fixedTokens: number;
  /** The most a summary may take, in tokens and in characters (its validation bound). */
  summaryTokens: number;
  summaryMaxChars: number;
  /** The raw tail kept at an ordinary compaction. */
  keepTokens: number;
  /** The largest raw tail that still fits under the threshold beside the summary, with a 5% margin. */
  fitTokens: number;
};

/** How the threshold is shared after a compaction: fixed parts, summary, working set, room to grow. */
export function compactionBudget(input: {
  threshold: number;
  maxOutputTokens: number;
  fixedTokens: number;
}): CompactionBudget {
  const available = Math.max(0, input.threshold - input.fixedTokens);
  const summaryTokens = Math.max(
    MIN_SUMMARY_TOKENS,
    Math.min(Math.floor(available * SUMMARY_SHARE), MAX_SUMMARY_TOKENS, input.maxOutputTokens),
  );
  return {
    fixedTokens: input.fixedTokens,
    summaryTokens,
    summaryMaxChars: summaryTokens * 4,
    keepTokens: Math.floor(available * WORKING_SET_SHARE),
    fitTokens: input.threshold - input.fixedTokens - summaryTokens - Math.ceil(0.05 * input.threshold),
  };
}

function placeholderMap(c: Pick<CheckpointPayload, "placeholders"> | null): Map<string, OffloadMark> {
  return new Map(
    (c?.placeholders ?? []).map((p) => [p.callId, { sha256: p.sha256, bytes: p.bytes, preview: p.preview }]),
  );
}

/**
 * The budget estimate (DESIGN §6): the provider's reported input tokens for the last request,
 * when that request was built on the same checkpoint (so its messages are a prefix of these),
 * plus ~chars/4 of what the messages grew by since; otherwise ~chars/4 of the whole request
 * (messages and tools as JSON). Cumulative usage is never used. Pure.
 */
export function estimateContextTokens(input: {
  system: string;
  tools: ToolSpec[];
  checkpoint: Pick<CheckpointPayload, "id" | "throughSeq" | "summary" | "placeholders"> | null;
  /** Visible events after the checkpoint, ascending. */
  events: Event[];
  messages: NeutralMessage[];
  lastUsage: SessionSummary["lastUsage"];
  /** `checkpointId` of the request at `lastUsage.requestSeq` (undefined when unknown). */
  lastRequestCheckpointId: string | null | undefined;
}): number {
  const whole = JSON.stringify({ messages: input.messages, tools: input.tools }).length;
  const last = input.lastUsage;
  const cp = input.checkpoint;
  const applies =
    last !== null && last.throughSeq >= (cp?.throughSeq ?? 0) && input.lastRequestCheckpointId === (cp?.id ?? null);
  if (!applies) return estimateRequestTokens({ reportedInputTokens: null, charsSinceReport: 0, charsWhole: whole });
  const seen = input.events.filter((e) => e.seq <= last.throughSeq);
  const prefix =
    seen.length === input.events.length
      ? whole
      : JSON.stringify({
          messages: buildModelMessages({
            system: input.system,
            summary: cp?.summary ?? null,
            events: seen,
            placeholders: placeholderMap(cp),
          }),
          tools: input.tools,
        }).length;
  return estimateRequestTokens({
    reportedInputTokens: last.inputTokens,
    charsSinceReport: Math.max(0, whole - prefix),
    charsWhole: whole,
  });
}

type Assembled = { ctx: NextContext; events: Event[]; checkpoint: CheckpointRecord | null };

/** Builds the context on a checkpoint, reading only the log after its `throughSeq` (O(suffix)). */
function assemble(deps: ContextDeps, input: ContextInput, checkpoint: CheckpointRecord | null): Assembled {
  const { model: m, system, tools } = input;
  const after = checkpoint?.throughSeq ?? 0;
  const events = deps.store.readContextEventsAfter(after);
  const messages = buildModelMessages({
    system,
    summary: checkpoint?.summary ?? null,
    events,
    placeholders: placeholderMap(checkpoint),
  });
  const last = input.summary.lastUsage;
  const lastRequest = last ? deps.store.get(last.requestSeq)?.actions?.modelRequest : undefined;
  const estimatedTokens = estimateContextTokens({
    system,
    tools,
    checkpoint,
    events,
    messages,
    lastUsage: last,
    lastRequestCheckpointId: lastRequest ? lastRequest.checkpointId : undefined,
  });
  return {
    events,
    checkpoint,
    ctx: {
      contextWindow: m.contextWindow,
      maxOutputTokens: m.maxOutputTokens,
      threshold: computeThreshold(m.contextWindow, m.maxOutputTokens),
      estimatedTokens,
      checkpoint: checkpoint
        ? {
            id: checkpoint.id,
            throughSeq: checkpoint.throughSeq,
            sourceDigest: checkpoint.sourceDigest,
            summary: checkpoint.summary,
          }
        : null,
      rawFromSeq: after + 1,
      throughSeq: deps.store.head().highWater,
      messages,
      tools,
    },
  };
}

/** Builds the next context from the log without changing anything (GET /context uses this). */
export function buildNextContext(deps: ContextDeps, input: ContextInput): NextContext {
  return assemble(deps, input, loadLatestCheckpoint(deps, { repair: false }).checkpoint).ctx;
}

export type PrepareDeps = ContextDeps & {
  /** Appends events through the runtime (summary, sockets), synchronously. */
  commit: (drafts: EventDraft[]) => Event[];
  provider: ModelProvider;
  signal: AbortSignal;
  base: { turnId: string; runId: string };
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The F9 crash boundary: a checkpoint summarised but not yet committed. */
  failpoint?: (id: "F9") => Promise<void>;
};

/**
 * The context for the next model call, compacting first when the estimate passes the
 * threshold (also in the middle of a turn). A checkpoint is validated and committed to the
 * log before it is used; if the result is still over budget the compaction escalates, and a
 * context that cannot fit even with everything summarised throws `ContextOverflowError`.
 * On abort it returns without compacting; the caller must not send then.
 */
export async function prepareContext(deps: PrepareDeps, input: ContextInput): Promise<NextContext> {
  let cur = assemble(deps, input, loadLatestCheckpoint(deps, { repair: true }).checkpoint);
  for (let level = 0; cur.ctx.estimatedTokens > cur.ctx.threshold; level++) {
    if (deps.signal.aborted) return cur.ctx;
    if (level >= COMPACTION_LEVELS)
      throw new ContextOverflowError(
        `the context needs ${cur.ctx.estimatedTokens} tokens after compaction; the threshold is ${cur.ctx.threshold}`,
      );
    const plan = planCompaction(cur, input, level, deps.store.head().highWater);
    if (!plan) continue;
    const next = await compact(deps, input, cur, plan);
    if (!next) return cur.ctx;
    cur = assemble(deps, input, next);
  }
  return cur.ctx;
}

type CompactionPlan = {
  /** `events[index..]` stay raw. */
  index: number;
  throughSeq: number;
  /** Indexes in `events` of results to archive now and show as placeholders. */
  archive: number[];
  /** Placeholders of the previous checkpoint that stay (their results stay raw). */
  carried: PlaceholderMark[];
  budget: CompactionBudget;
};

function fixedTokens(input: ContextInput): number {
  return (
    Math.ceil(
      JSON.stringify({ messages: [{ role: "system", content: input.system }], tools: input.tools }).length / 4,
    ) + CHECKPOINT_FRAMING_TOKENS
  );
}

/** Chooses the waterline and the placeholders for one escalation level, or null when the level cannot help. */
function planCompaction(cur: Assembled, input: ContextInput, level: number, head: number): CompactionPlan | null {
  const { events, checkpoint: cp } = cur;
  const budget = compactionBudget({
    threshold: cur.ctx.threshold,
    maxOutputTokens: input.model.maxOutputTokens,
    fixedTokens: fixedTokens(input),
  });
  const previous = placeholderMap(cp);
  const carriedFor = (index: number) =>
    (cp?.placeholders ?? []).filter((p) =>
      events.some((e, i) => i >= index && e.content?.type === "functionResponse" && e.content.callId === p.callId),
    );
  if (level >= 2) {
    if (budget.fixedTokens + budget.summaryTokens > cur.ctx.threshold)
      throw new ContextOverflowError(
        `the system prompt and tools need ${budget.fixedTokens} tokens, leaving no room for a summary under the threshold ${cur.ctx.threshold}`,
      );
    return { index: events.length, throughSeq: head, archive: [], carried: [], budget };
  }
  const archive = placeholderCandidates(events, {
    minBytes: level === 0 ? OLDER_RESULT_PLACEHOLDER_BYTES : FORCED_PLACEHOLDER_BYTES,
    keepRecent: level === 0 ? RECENT_RAW_RESULTS : 0,
    already: new Set(previous.keys()),
  });
  // For costs, a new placeholder counts at its largest (a full preview): the real one is not made yet.
  const marks = new Map(previous);
  for (const i of archive) {
    const c = events[i]!.content as Extract<Event["content"], { type: "functionResponse" }>;
    marks.set(c.callId, { sha256: "0".repeat(64), bytes: 0, preview: "x".repeat(PREVIEW_BYTES) });
  }
  const starts = tailStarts(events);
  if (level === 1 && cp) starts.unshift(0);
  const choice = selectWaterline({
    costs: events.map((e) => eventCost(e, marks)),
    starts,
    keepTokens: Math.min(budget.keepTokens, budget.fitTokens),
    fitTokens: budget.fitTokens,
  });
  if (!choice) return null;
  const tailArchive = archive.filter((i) => i >= choice.index);
  if (choice.index === 0 && tailArchive.length === 0) return null;
  const throughSeq = choice.index === 0 ? cp!.throughSeq : events[choice.index]!.seq - 1;
  return { index: choice.index, throughSeq, archive: tailArchive, carried: carriedFor(choice.index), budget };
}

/** Archives, summarises, validates and commits one checkpoint; null when aborted. */
async function compact(
  deps: PrepareDeps,
  input: ContextInput,
  cur: Assembled,
  plan: CompactionPlan,
): Promise<CheckpointRecord | null> {
  const { events, checkpoint: cp } = cur;
  // Archive first, placeholder second: each result is stored and read back before a checkpoint names it.
  const fresh: PlaceholderMark[] = plan.archive.map((i) => archiveResult(deps.store, events[i]!));
  const order = new Map(
    events.flatMap((e, i) => (e.content?.type === "functionResponse" ? [[e.content.callId, i] as const] : [])),
  );
  const placeholders = [...plan.carried, ...fresh].sort(
    (a, b) => (order.get(a.callId) ?? 0) - (order.get(b.callId) ?? 0),
  );
  const made = await summarise(deps, input, {
    previous: cp?.summary ?? null,
    events: events.slice(0, plan.index),
    placeholders,
    budget: plan.budget,
    threshold: cur.ctx.threshold,
  });
  if (!made || deps.signal.aborted) return null;
  await deps.failpoint?.("F9");
  const sourceDigest = deps.store.digestAt(plan.throughSeq);
  if (sourceDigest === null) throw new Error(`no event at seq ${plan.throughSeq} to checkpoint`);
  const payload: CheckpointPayload = {
    id: `ckpt_${crypto.randomUUID()}`,
    throughSeq: plan.throughSeq,
    sourceDigest,
    prevId: cp?.id ?? null,
    summary: made.summary,
    placeholders,
    method: made.method,
    ...(made.usage ? { usage: made.usage } : {}),
  };
  const [event] = deps.commit([checkpointDraft(payload, deps.base)]);
  const record: CheckpointRecord = { ...payload, eventSeq: event!.seq };
  // The table is a cache of the event; a crash before this line is repaired at the next load.
  writeCheckpointRow(deps.sql, record);
  return record;
}

function archiveResult(store: EventStore, e: Event): PlaceholderMark {
  const c = e.content as Extract<Event["content"], { type: "functionResponse" }>;
  if (isBlobRef(c.response)) {
    // Already in the blob store (its event was over 512 KiB): check it, then point at it.
    const meta = store.blobs.meta(c.response.$blob.sha256);
    if (!meta || !store.blobs.check(meta))
      throw new Error(`archived result ${c.response.$blob.sha256} failed its check`);
    const head = new TextDecoder().decode(store.blobs.read(meta.sha256, 0, PREVIEW_BYTES + 8) ?? new Uint8Array());
    return { callId: c.callId, sha256: meta.sha256, bytes: meta.bytes, preview: cutUtf8(head, PREVIEW_BYTES) };
  }
  const text = serializeToolResponse(c.response);
  const meta = store.blobs.put(text, typeof c.response === "string" ? "text/plain; charset=utf-8" : "application/json");
  const placeholder = makePlaceholder(c.name, text, meta);
  return { callId: c.callId, sha256: meta.sha256, bytes: meta.bytes, preview: placeholder.preview };
}

/**
 * The checkpoint summary: the previous summary merged with the events up to the waterline,
 * by the model, in pieces that each fit the window; after failed retries, the deterministic
 * extract. A compaction that summarises nothing new carries the previous summary over.
 */
async function summarise(
  deps: PrepareDeps,
  input: ContextInput,
  job: {
    previous: string | null;
    events: Event[];
    placeholders: PlaceholderMark[];
    budget: CompactionBudget;
    threshold: number;
  },
): Promise<{ summary: string; method: CheckpointMethod; usage?: CheckpointPayload["usage"] } | null> {
  const maxChars = job.budget.summaryMaxChars;
  const visible = job.events.filter((e) => e.modelVisibility === "visible" && e.content);
  if (visible.length === 0 && job.previous !== null && job.previous.length <= maxChars)
    return { summary: job.previous, method: "carried" };
  const extract = () =>
    buildExtractSummary({ previous: job.previous, events: job.events, placeholders: job.placeholders, maxChars });
  // What a compaction request costs besides its piece: instructions, a previous summary at its bound, a retry note.
  const overhead = requestTokens(
    buildSummaryRequest({
      model: input.model,
      previous: "x".repeat(Math.ceil(maxChars * 1.15)),
      piece: "",
      maxChars,
      rejected: "x".repeat(300),
    }),
  );
  const pieceChars = (job.threshold - overhead) * 4 - 64;
  const lines = renderEvents(job.events, new Map(job.placeholders.map((p) => [p.callId, p])));
  if (lines.length === 0) lines.push("(no new visible events; shorten the previous summary to fit its bound)");
  const pieces = pieceChars >= 2000 ? splitPieces(lines, pieceChars) : [];
  if (pieces.length === 0 || pieces.length > MAX_SUMMARY_PIECES) return { summary: extract(), method: "extract" };
  const outcome = await summarisePieces(
    { provider: deps.provider, signal: deps.signal, ...(deps.sleep ? { sleep: deps.sleep } : {}) },
    { model: input.model, previous: job.previous, pieces, maxChars, budgetTokens: job.threshold },
  );
  if (deps.signal.aborted) return null;
  const usage = outcome.usage.inputTokens || outcome.usage.outputTokens ? outcome.usage : undefined;
  if (outcome.ok) return { summary: outcome.summary, method: "model", ...(usage ? { usage } : {}) };
  return { summary: extract(), method: "extract", ...(usage ? { usage } : {}) };
}
