import type { ContextReads, Event, EventStore } from "../log";
import type { ModelConfig, NeutralMessage, ToolSpec } from "../model/types";
import { buildModelMessages, type OffloadMark, type SessionSummary, tokensForChars } from "../projections";
import type { SqlLike } from "../storage";
import { PREVIEW_BYTES } from "../tools";
import { computeThreshold, estimateRequestTokens } from "./budget";
import {
  type CheckpointPayload,
  type CheckpointRecord,
  loadLatestCheckpoint,
  type PlaceholderMark,
} from "./checkpoint";
import { CHECKPOINT_FRAMING_TOKENS, type CompactionBudget, compactionBudget } from "./compaction-budget";
import { rememberRequestDigest } from "./request-digest";
import { currentView, type ViewBase, viewThrough } from "./request-view";
import {
  eventCost,
  FORCED_PLACEHOLDER_BYTES,
  OLDER_RESULT_PLACEHOLDER_BYTES,
  placeholderCandidates,
  RECENT_RAW_RESULTS,
  selectWaterline,
  tailStarts,
} from "./waterline";

/** The checkpoint as `GET /context` shows it (docs/API.md §2 `ContextView`). */
export type { CheckpointView } from "../contract/reads";
export { COMPACTION_LEVELS, type CompactionBudget, compactionBudget } from "./compaction-budget";

import type { ContextView } from "../contract/reads";

/** What the next model call receives: what `GET /context` shows, plus the tools and the log prefix it covers. */
export type NextContext = ContextView & {
  /** The log prefix the request was built from (`modelRequest.throughSeq`). */
  throughSeq: number;
  tools: ToolSpec[];
};

export type ContextInput = {
  summary: SessionSummary;
  model: ModelConfig;
  system: string;
  tools: ToolSpec[];
  /** A fork's prefix (docs/API.md §7.30): the parent's messages the context starts from until its own first checkpoint. */
  prefix?: { messages: NeutralMessage[]; text: string };
};

/** The fork's prefix goes right after the system message while the fork has no checkpoint of its own. */
export function withPrefix(
  messages: NeutralMessage[],
  prefix: ContextInput["prefix"],
  checkpoint: unknown,
): NeutralMessage[] {
  if (!prefix || checkpoint) return messages;
  return [messages[0]!, ...prefix.messages, ...messages.slice(1)];
}

export type ContextDeps = { store: EventStore; view: ContextReads; sql: SqlLike };

/** A context that cannot be brought under the threshold even with everything summarised. */
export class ContextOverflowError extends Error {
  readonly code = "context_overflow";
}

export function placeholderMap(c: Pick<CheckpointPayload, "placeholders"> | null): Map<string, OffloadMark> {
  return new Map(
    (c?.placeholders ?? []).map((p) => [p.callId, { sha256: p.sha256, bytes: p.bytes, preview: p.preview }]),
  );
}

/**
 * The budget estimate (docs/design.md §6): the provider's reported input tokens for the last request,
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
  prefix?: ContextInput["prefix"];
}): number {
  return estimateFromChars({
    ...input,
    messagesChars: JSON.stringify(input.messages).length,
    toolsChars: JSON.stringify(input.tools).length,
  });
}

/** `estimateContextTokens` with the messages' JSON length known (the request view keeps it). */
function estimateFromChars(input: {
  system: string;
  tools: ToolSpec[];
  checkpoint: Pick<CheckpointPayload, "id" | "throughSeq" | "summary" | "placeholders"> | null;
  events: Event[];
  messagesChars: number;
  toolsChars: number;
  lastUsage: SessionSummary["lastUsage"];
  lastRequestCheckpointId: string | null | undefined;
  prefix?: ContextInput["prefix"];
  /** The messages' JSON length of the request made at a `throughSeq`, if known. */
  charsAt?: (throughSeq: number) => number | undefined;
}): number {
  // The length of JSON.stringify({ messages, tools }), from the parts' lengths.
  const wholeOf = (messagesChars: number) => 12 + messagesChars + 9 + input.toolsChars + 1;
  const whole = wholeOf(input.messagesChars);
  const last = input.lastUsage;
  const cp = input.checkpoint;
  const applies =
    last !== null && last.throughSeq >= (cp?.throughSeq ?? 0) && input.lastRequestCheckpointId === (cp?.id ?? null);
  if (!applies) return estimateRequestTokens({ reportedInputTokens: null, charsSinceReport: 0, charsWhole: whole });
  const atHead = (input.events.at(-1)?.seq ?? 0) <= last.throughSeq;
  const known = atHead ? undefined : input.charsAt?.(last.throughSeq);
  const prefix = atHead
    ? whole
    : known !== undefined
      ? wholeOf(known)
      : JSON.stringify({
          messages: withPrefix(
            buildModelMessages({
              system: input.system,
              summary: cp?.summary ?? null,
              events: input.events.filter((e) => e.seq <= last.throughSeq),
              placeholders: placeholderMap(cp),
            }),
            input.prefix,
            cp,
          ),
          tools: input.tools,
        }).length;
  return estimateRequestTokens({
    reportedInputTokens: last.inputTokens,
    charsSinceReport: Math.max(0, whole - prefix),
    charsWhole: whole,
  });
}

export type Assembled = { ctx: NextContext; events: Event[]; checkpoint: CheckpointRecord | null };

/**
 * Builds the context on a checkpoint, reading only the log after its `throughSeq` (O(suffix)).
 * `through` bounds it to a prefix: a re-issued call rebuilds exactly the request it recorded.
 */
export function assembleContext(
  deps: ContextDeps,
  input: ContextInput,
  checkpoint: CheckpointRecord | null,
  through?: number,
): Assembled {
  const { model: m, system, tools } = input;
  const after = checkpoint?.throughSeq ?? 0;
  const base: ViewBase = {
    system,
    checkpoint: checkpoint
      ? { id: checkpoint.id, throughSeq: checkpoint.throughSeq, summary: checkpoint.summary }
      : null,
    placeholders: placeholderMap(checkpoint),
    ...(input.prefix ? { prefix: input.prefix } : {}),
  };
  const head = deps.store.head().highWater;
  const view =
    through === undefined || through >= head
      ? currentView(deps.store, deps.view, base)
      : viewThrough(deps.view, base, through);
  const request = view.request(tools);
  const { events, messages } = request;
  const last = input.summary.lastUsage;
  const lastRequest = last ? deps.store.get(last.requestSeq)?.actions?.modelRequest : undefined;
  const estimatedTokens = estimateFromChars({
    system,
    tools,
    checkpoint,
    events,
    messagesChars: request.messagesChars,
    toolsChars: JSON.stringify(tools).length,
    lastUsage: last,
    lastRequestCheckpointId: lastRequest ? lastRequest.checkpointId : undefined,
    prefix: input.prefix,
    charsAt: (seq) => view.charsAt(seq),
  });
  const ctx: NextContext = {
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
    throughSeq: through ?? head,
    messages,
    tools,
  };
  rememberRequestDigest(ctx, request.requestDigest);
  return { events, checkpoint, ctx };
}

/** Builds the next context from the log without changing anything (GET /context uses this). */
export function buildNextContext(deps: ContextDeps, input: ContextInput): NextContext {
  return assembleContext(deps, input, loadLatestCheckpoint(deps, { repair: false }).checkpoint).ctx;
}

export type CompactionPlan = {
  /** `events[index..]` stay raw. */
  index: number;
  throughSeq: number;
  /** Indexes in `events` of results to archive now and show as placeholders. */
  archive: number[];
  /** Placeholders of the previous checkpoint that stay (their results stay raw). */
  carried: PlaceholderMark[];
  budget: CompactionBudget;
};

export function fixedTokens(input: ContextInput): number {
  const fixed = JSON.stringify({ messages: [{ role: "system", content: input.system }], tools: input.tools });
  return tokensForChars(fixed.length) + CHECKPOINT_FRAMING_TOKENS;
}

/** Chooses the waterline and the placeholders for one escalation level, or null when the level cannot help. */
export function planCompaction(
  cur: Assembled,
  input: ContextInput,
  level: number,
  head: number,
): CompactionPlan | null {
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
  // A fork's first compaction may summarise only the parent's prefix it starts from (docs/API.md §7.30).
  const prefixOnly = !cp && input.prefix !== undefined;
  if ((level === 1 && cp) || prefixOnly) starts.unshift(0);
  const choice = selectWaterline({
    costs: events.map((e) => eventCost(e, marks)),
    starts,
    keepTokens: Math.min(budget.keepTokens, budget.fitTokens),
    fitTokens: budget.fitTokens,
  });
  if (!choice) return null;
  const tailArchive = archive.filter((i) => i >= choice.index);
  if (choice.index === 0 && tailArchive.length === 0 && !prefixOnly) return null;
  const throughSeq =
    choice.index > 0
      ? events[choice.index]!.seq - 1
      : cp
        ? cp.throughSeq
        : Math.max(1, (events[0]?.seq ?? head + 1) - 1);
  return { index: choice.index, throughSeq, archive: tailArchive, carried: carriedFor(choice.index), budget };
}
