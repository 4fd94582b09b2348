/**
 * The summary cache (docs/design.md#where-things-live): the session's summary folded from each
 * committed event and written beside the log in the same transaction (parsed with zod and
 * versioned, rebuilt from the log when it disagrees), and whether what a socket's `session` frame
 * shows changed.
 */
import { z } from "zod";

import { canonical } from "../contract/canonical";
import type { Event } from "../contract/event";
import type { EventStore, Writes } from "../log/store";
import { reduceSummaryWith, type Session, type SessionSummary, type SliceFold } from "../projections/summary";
import { parseJson, readMeta, type SqlLike, writeMeta } from "../storage/sql";
import type { RuntimeFeature } from "./feature";
import { applyIdempotencyEvents, touchesIdempotency } from "./message";

const SUMMARY_VERSION = 1;

const ModelConfigRow = z.object({
  provider: z.enum(["openai", "anthropic", "workers-ai", "demo"]),
  name: z.string(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});

/** The summary row without `options` (kept in their own row, written only when they change). */
const SummaryRow = z.object({
  v: z.literal(SUMMARY_VERSION),
  summary: z
    .object({
      id: z.string(),
      title: z.string().nullable(),
      parentId: z.string().nullable(),
      createdAt: z.string(),
      updatedAt: z.string(),
      model: ModelConfigRow,
      openTurn: z
        .object({
          turnId: z.string(),
          startSeq: z.number(),
          runId: z.string(),
          model: ModelConfigRow,
          lastModelRequestSeq: z.number().nullable(),
          lastModelRequestThrough: z.number().nullable(),
          lengthStreak: z.number().optional(),
        })
        // The wait and budget fields (projections/waits.ts) ride along.
        .passthrough()
        .nullable(),
      lastClose: z.enum(["completed", "stopped", "failed"]).nullable(),
      pendingApprovals: z.array(
        z.object({ requestId: z.string(), callId: z.string(), tool: z.string(), args: z.unknown() }),
      ),
      recoveryNotice: z
        .object({
          atSeq: z.number(),
          rerun: z.array(z.string()),
          needsReview: z.array(z.string()),
          reissued: z.array(z.string()),
        })
        .nullable(),
      usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number() }),
      lastUsage: z.object({ requestSeq: z.number(), throughSeq: z.number(), inputTokens: z.number() }).nullable(),
      highWater: z.number(),
      headDigest: z.string(),
    })
    .passthrough(),
});
const OptionsRow = z.object({ v: z.literal(SUMMARY_VERSION), options: z.record(z.string(), z.unknown()) });

const SnapshotRow = SummaryRow.extend({ options: z.record(z.string(), z.unknown()) });

/** The summary is also kept at every multiple of this seq (`summary_at`), so a lost cache folds a bounded suffix. */
export const SUMMARY_SNAPSHOT_EVERY = 1000;
/** The summary row is at most this many seqs (and one commit) behind the head. */
export const SUMMARY_WRITE_EVERY = 32;

/**
 * The cached summary if it parses and matches the head. Otherwise the fold resumes from the
 * newest position the log still agrees with (the cache row, else the `summary_at` snapshot:
 * the digest at its seq must be the one it folded), reading only the events after it; with
 * neither, from the start of the log (docs/design.md#summary). The result is cached.
 */
export function loadSummary(sql: SqlLike, store: EventStore, folds: readonly SliceFold[] = []): SessionSummary | null {
  const row = parseJson(SummaryRow, readMeta(sql, "summary"));
  const options = parseJson(OptionsRow, readMeta(sql, "options"));
  const head = store.head();
  const cached =
    row && options
      ? ({ ...(row.summary as Omit<SessionSummary, "options">), options: options.options } as SessionSummary)
      : null;
  if (cached && cached.highWater === head.highWater && cached.headDigest === head.headDigest) return cached;
  const snapshot = parseJson(SnapshotRow, readMeta(sql, "summary_at"));
  const candidates = [
    cached,
    snapshot
      ? ({ ...(snapshot.summary as Omit<SessionSummary, "options">), options: snapshot.options } as SessionSummary)
      : null,
  ];
  let s: SessionSummary | null = null;
  for (const c of candidates) {
    if (c && c.highWater <= head.highWater && store.digestAt(c.highWater) === c.headDigest) {
      s = c;
      break;
    }
  }
  for (let after = s?.highWater ?? 0; ; ) {
    const page = store.readAfter(after, 1000);
    if (page.length === 0) break;
    for (const e of page) s = reduceSummaryWith(s, e, folds);
    after = page[page.length - 1]!.seq;
  }
  if (s) {
    const { options: opts, ...rest } = s;
    writeMeta(sql, "summary", { v: SUMMARY_VERSION, summary: rest });
    if (!options || JSON.stringify(options.options) !== JSON.stringify(opts))
      writeMeta(sql, "options", { v: SUMMARY_VERSION, options: opts });
    if (!snapshot) writeMeta(sql, "summary_at", { v: SUMMARY_VERSION, summary: rest, options: opts });
  }
  return s;
}

function passedMultiple(s: SessionSummary, previous: SessionSummary | null, every: number): boolean {
  return !previous || Math.floor(s.highWater / every) !== Math.floor(previous.highWater / every);
}

/** Whether `writeSummary(sql, s, previous)` writes anything (a commit that writes nothing else needs no transaction). */
export function summaryWriteDue(s: SessionSummary, previous: SessionSummary | null): boolean {
  return (
    s.options !== previous?.options ||
    passedMultiple(s, previous, SUMMARY_WRITE_EVERY) ||
    passedMultiple(s, previous, SUMMARY_SNAPSHOT_EVERY)
  );
}

/**
 * Writes the summary cache as the head passes a multiple of `SUMMARY_WRITE_EVERY`; the options
 * (up to 64 KiB of system prompt) only when they change; and the snapshot with the options each
 * time the head passes a multiple of `SUMMARY_SNAPSHOT_EVERY`.
 */
export function writeSummary(sql: SqlLike, s: SessionSummary, previous: SessionSummary | null) {
  const { options, ...rest } = s;
  const passed = (every: number) => passedMultiple(s, previous, every);
  const optionsChanged = options !== previous?.options;
  // The row is written when the head passes a multiple of SUMMARY_WRITE_EVERY (and with the
  // options): a load folds the few events after it, so a commit of one event writes only its event.
  if (optionsChanged || passed(SUMMARY_WRITE_EVERY)) writeMeta(sql, "summary", { v: SUMMARY_VERSION, summary: rest });
  if (optionsChanged) writeMeta(sql, "options", { v: SUMMARY_VERSION, options });
  if (passed(SUMMARY_SNAPSHOT_EVERY)) writeMeta(sql, "summary_at", { v: SUMMARY_VERSION, summary: rest, options });
}

/** Folds committed events into the summary (pure: `writeSummary` writes the cache when it is due). */
export function foldSummary(
  current: SessionSummary | null,
  events: Event[],
  features: readonly RuntimeFeature[] = [],
): SessionSummary | null {
  let next = current;
  for (const e of events) next = reduceSummaryWith(next, e, features);
  return next;
}

/**
 * The cache writes a commit of `events` needs in its transaction (the summary row when due, each
 * feature's tables, the idempotency table, `also`), or null when none is: the commit is then one
 * INSERT (docs/design.md#3-storage).
 */
export function cacheWrites(
  sql: SqlLike,
  features: readonly RuntimeFeature[],
  c: { previous: SessionSummary | null; next: SessionSummary | null; events: Event[]; also?: Writes },
): Writes | null {
  const { previous, next, also } = c;
  // Only the features the events touch apply them; one without `touches` applies every commit that writes.
  const touched = features.filter((f) => f.apply && f.touches?.(c.events, next?.features?.[f.name]) !== false);
  const due =
    !!also || (next !== null && summaryWriteDue(next, previous)) || touchesIdempotency(c.events) || touched.length > 0;
  if (!due) return null;
  return (committed) => {
    if (next) writeSummary(sql, next, previous);
    for (const feature of touched) feature.apply?.(sql, committed);
    applyIdempotencyEvents(sql, committed);
    also?.(committed);
  };
}

/** Whether a commit changed what the `session` frame shows (so sockets are sent one). */
export function sessionChanged(before: Session | null, after: Session | null): boolean {
  return (
    !before ||
    !after ||
    before.status !== after.status ||
    before.openTurn !== after.openTurn ||
    canonical(before.pendingApprovals) !== canonical(after.pendingApprovals) ||
    canonical(before.pendingInputs) !== canonical(after.pendingInputs) ||
    canonical(before.recoveryNotice) !== canonical(after.recoveryNotice) ||
    canonical(before.wait) !== canonical(after.wait)
  );
}

/**
 * True when nothing the sockets are told about on a commit (status, open turn, approvals,
 * recovery notice, wait) can differ: every part they are derived from is the same object.
 */
export function sameOutside(a: SessionSummary, b: SessionSummary): boolean {
  return (
    a.openTurn === b.openTurn &&
    a.pendingApprovals === b.pendingApprovals &&
    a.pendingInputs === b.pendingInputs &&
    a.recoveryNotice === b.recoveryNotice &&
    a.lastClose === b.lastClose &&
    a.children === b.children
  );
}
