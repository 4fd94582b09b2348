/**
 * Compaction's I/O (docs/design.md §6): archive the results a checkpoint turns into placeholders,
 * summarise with the model, validate, commit the checkpoint event, then build on it. What to
 * compact and how the context is assembled are pure and live in `context/`.
 */
import {
  type Assembled,
  assembleContext,
  buildExtractSummary,
  buildSummaryRequest,
  type CheckpointMethod,
  type CheckpointPayload,
  type CheckpointRecord,
  COMPACTION_LEVELS,
  type CompactionBudget,
  type CompactionPlan,
  type ContextDeps,
  type ContextInput,
  ContextOverflowError,
  checkpointDraft,
  loadLatestCheckpoint,
  MAX_SUMMARY_PIECES,
  type NextContext,
  type PlaceholderMark,
  planCompaction,
  renderEvents,
  requestTokens,
  type SummaryAnswer,
  splitPieces,
  summarisePieces,
  writeCheckpointRow,
} from "../context";
import { type Event, type EventDraft, type EventStore, isBlobRef } from "../log";
import type { ModelProvider, ModelRequest } from "../model/types";
import { CHARS_PER_TOKEN } from "../projections";
import { cutUtf8, makePlaceholder, PREVIEW_BYTES, serializeToolResponse } from "../tools";
import type { CompactionRecord } from "./compaction-calls";

export type PrepareDeps = ContextDeps & {
  /** Appends events through the runtime (summary, sockets), synchronously. */
  commit: (drafts: EventDraft[]) => Event[];
  provider: ModelProvider;
  signal: AbortSignal;
  base: { turnId: string; runId: string };
  /**
   * Sends one compaction call, recorded in the log (`compactionSender`); absent, it is streamed
   * from `provider` unrecorded. A retryable failure is thrown on, never slept on.
   */
  send?: (request: ModelRequest, record: CompactionRecord) => Promise<SummaryAnswer>;
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
  let cur = assembleContext(deps, input, loadLatestCheckpoint(deps, { repair: true }).checkpoint);
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
    cur = assembleContext(deps, input, next);
  }
  return cur.ctx;
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
    // A fork's first compaction summarises the parent's prefix it started from too.
    prefix: cp ? undefined : input.prefix?.text,
    events: events.slice(0, plan.index),
    placeholders,
    budget: plan.budget,
    threshold: cur.ctx.threshold,
    record: { throughSeq: plan.throughSeq, checkpointId: cp?.id ?? null },
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
    prefix?: string;
    events: Event[];
    placeholders: PlaceholderMark[];
    budget: CompactionBudget;
    threshold: number;
    record: CompactionRecord;
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
  const pieceChars = (job.threshold - overhead) * CHARS_PER_TOKEN - 64;
  const lines = renderEvents(job.events, new Map(job.placeholders.map((p) => [p.callId, p])));
  if (job.prefix) lines.unshift(...job.prefix.split("\n"));
  if (lines.length === 0) lines.push("(no new visible events; shorten the previous summary to fit its bound)");
  const pieces = pieceChars >= 2000 ? splitPieces(lines, pieceChars) : [];
  if (pieces.length === 0 || pieces.length > MAX_SUMMARY_PIECES) return { summary: extract(), method: "extract" };
  const send = deps.send;
  const outcome = await summarisePieces(
    {
      provider: deps.provider,
      signal: deps.signal,
      ...(send ? { send: (request: ModelRequest) => send(request, job.record) } : {}),
    },
    { model: input.model, previous: job.previous, pieces, maxChars, budgetTokens: job.threshold },
  );
  if (deps.signal.aborted) return null;
  const usage = outcome.usage.inputTokens || outcome.usage.outputTokens ? outcome.usage : undefined;
  if (outcome.ok) return { summary: outcome.summary, method: "model", ...(usage ? { usage } : {}) };
  return { summary: extract(), method: "extract", ...(usage ? { usage } : {}) };
}
