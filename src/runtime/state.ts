/**
 * The runtime's rows beside the log, all caches or bookkeeping that the log can do without:
 * the session summary (parsed with zod and versioned, rebuilt from the log when it disagrees),
 * the slice record of docs/API.md §7.13 and what was in flight (idempotency answers: `idempotency.ts`).
 */
import { z } from "zod";
import { REQUEST_ID } from "../contract/session";
import type { EventStore } from "../log/store";
import type { Inflight } from "../projections/recovery-plan";
import { reduceSummaryWith, type SessionSummary, type SliceFold } from "../projections/summary";
import { rows, run, type SqlLike } from "../storage/sql";

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

function readMeta(sql: SqlLike, key: string): string | null {
  return rows<{ value: string }>(sql)`SELECT value FROM meta WHERE key = ${key}`[0]?.value ?? null;
}

function writeMeta(sql: SqlLike, key: string, value: unknown) {
  run(sql)`INSERT INTO meta (key, value) VALUES (${key}, ${JSON.stringify(value)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

function parseJson<T>(schema: z.ZodType<T>, text: string | null): T | null {
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

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

/** docs/API.md §7.13: the head seq the latest slice started from and how many slices started there. */
const SliceRow = z.object({ v: z.literal(1), headSeq: z.number(), started: z.number() });
export type SliceRecord = z.infer<typeof SliceRow>;

export function readSlice(sql: SqlLike): SliceRecord | null {
  return parseJson(SliceRow, readMeta(sql, "slice"));
}

/** Slices that started from `headSeq` and ended without committing (the record is from that head). */
export function failedSlicesAt(sql: SqlLike, headSeq: number): number {
  const r = readSlice(sql);
  return r && r.headSeq === headSeq ? r.started : 0;
}

/** Before any work: this slice starts from `headSeq` (one more start there if the last one failed). */
export function recordSliceStart(sql: SqlLike, headSeq: number): number {
  const started = failedSlicesAt(sql, headSeq) + 1;
  writeMeta(sql, "slice", { v: 1, headSeq, started });
  return started;
}

const InflightRow = z.object({
  v: z.literal(1),
  invocationId: z.string().optional(),
  attempt: z.number().optional(),
  callId: z.string().optional(),
  incarnation: z.string().optional(),
});

/**
 * What the last slice had under way when it ended (a model attempt or a tool run), if it never
 * finished; `mine` when the object incarnation `incarnation` wrote it (it did not restart since).
 */
export function readInflight(sql: SqlLike, incarnation?: string): Inflight {
  const r = parseJson(InflightRow, readMeta(sql, "inflight"));
  if (!r) return null;
  const { v: _v, incarnation: by, ...rest } = r;
  return by !== undefined && by === incarnation ? { ...rest, mine: true } : rest;
}

/** Records what is under way, with the incarnation of the object that started it. */
export function writeInflight(sql: SqlLike, value: Inflight, incarnation?: string) {
  if (value === null) run(sql)`DELETE FROM meta WHERE key = ${"inflight"}`;
  else {
    const { mine: _mine, ...rest } = value;
    writeMeta(sql, "inflight", { v: 1, ...rest, ...(incarnation ? { incarnation } : {}) });
  }
}

/**
 * Whether the log holds a permission request with this id, pending or decided: the one lookup
 * behind both "unknown approval" (404) and "already decided" (409).
 */
export function approvalKnown(sql: SqlLike, requestId: string): boolean {
  if (!REQUEST_ID.test(requestId)) return false;
  // By value among the approval requests (their kind is indexed), never a pattern over bodies.
  return (
    rows(
      sql,
    )`SELECT 1 FROM events WHERE kind = 'permissionRequest' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse')
      AND json_extract(body, '$.actions.permissionRequest.requestId') = ${requestId} LIMIT 1`.length > 0
  );
}
