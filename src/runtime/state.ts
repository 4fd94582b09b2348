/**
 * The runtime's rows beside the log, all bookkeeping that the log can do without: the slice
 * record of docs/API.md §7.13 and what was in flight (the summary: `summary-cache.ts`; idempotency
 * answers: `idempotency.ts`).
 */
import { z } from "zod";
import { REQUEST_ID } from "../contract/session";
import type { Inflight } from "../projections/recovery-plan";
import { parseJson, readMeta, rows, run, type SqlLike, writeMeta } from "../storage/sql";

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
