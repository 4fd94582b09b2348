/**
 * A turn's trace read from storage, and the export outbox (docs/API.md#traces): the seq of the
 * last exported `turnClose` kept in `meta`, the next closed turn after it POSTed until a 2xx.
 * Reads are bounded by the turn: the runs index gives where it starts, the `kind` index where
 * it closed, and only that range of the log is read.
 */
import { ApiError } from "../contract";
import type { Event } from "../log";
import { rows, run, type SqlLike } from "../storage";
import { afterAttempt, EMPTY_OUTBOX, type ExportConfig, exportDue, type OutboxState } from "./export";
import { buildTurnTrace, type OtlpTrace } from "./spans";

const OUTBOX_KEY = "trace_export";
export const SERVICE_NAME = "highwater";

type Range = { turnId: string; from: number; through: number };

/** Where `turnId` lies in the log (default: the last closed turn), or 404. */
export function turnRange(sql: SqlLike, turnId: string | null): Range {
  if (turnId === null) {
    const last = rows<{ seq: number; turn_id: string | null }>(sql)`
      SELECT seq, json_extract(body, '$.turnId') AS turn_id FROM events
      WHERE kind = 'turnClose' AND author <> 'model' ORDER BY seq DESC LIMIT 1`[0];
    if (!last?.turn_id) throw new ApiError("not_found", "no closed turn");
    turnId = last.turn_id;
  }
  const start = rows<{ seq: number }>(sql)`SELECT MIN(seq) AS seq FROM runs WHERE turn_id = ${turnId}`[0]?.seq;
  if (typeof start !== "number") throw new ApiError("not_found", "unknown turn");
  const close = rows<{ seq: number }>(sql)`
    SELECT seq FROM events WHERE kind = 'turnClose' AND author <> 'model' AND seq >= ${start}
      AND json_extract(body, '$.turnId') = ${turnId} ORDER BY seq LIMIT 1`[0];
  const through = close?.seq ?? rows<{ seq: number }>(sql)`SELECT MAX(seq) AS seq FROM events`[0]!.seq;
  return { turnId, from: start, through };
}

/** The turn's own events, and only those of its range. */
function turnEvents(sql: SqlLike, r: Range): Event[] {
  return rows<{ body: string }>(sql)`
    SELECT body FROM events WHERE seq >= ${r.from} AND seq <= ${r.through} AND json_extract(body, '$.turnId') = ${r.turnId}
    ORDER BY seq`.map((row) => JSON.parse(row.body) as Event);
}

/** The model as of `seq`: the latest `stateDelta.model` (a PATCH) before it, else the session's own. */
function modelAt(sql: SqlLike, seq: number): { provider: string; name: string } {
  const patched = rows<{ model: string | null }>(sql)`
    SELECT json_extract(body, '$.actions.stateDelta.model') AS model FROM events
    WHERE kind IN ('state', 'state:model') AND author <> 'model' AND seq < ${seq}
      AND json_extract(body, '$.actions.stateDelta.model') IS NOT NULL ORDER BY seq DESC LIMIT 1`[0]?.model;
  const created = rows<{ model: string | null }>(sql)`
    SELECT json_extract(body, '$.actions.stateDelta.session.model') AS model FROM events WHERE seq = 1`[0]?.model;
  const m = JSON.parse(patched ?? created ?? "{}") as { provider?: string; name?: string };
  return { provider: m.provider ?? "unknown", name: m.name ?? "unknown" };
}

/** `GET /trace`: the OTLP/JSON trace of `turnId` (default: the last closed turn). */
export function readTurnTrace(sql: SqlLike, sessionId: string, turnId: string | null): OtlpTrace {
  const r = turnRange(sql, turnId);
  return buildTurnTrace(turnEvents(sql, r), {
    sessionId,
    turnId: r.turnId,
    serviceName: SERVICE_NAME,
    model: modelAt(sql, r.from),
  });
}

export function outboxState(sql: SqlLike): OutboxState {
  const v = rows<{ value: string }>(sql)`SELECT value FROM meta WHERE key = ${OUTBOX_KEY}`[0]?.value;
  return v ? { ...EMPTY_OUTBOX, ...(JSON.parse(v) as Partial<OutboxState>) } : { ...EMPTY_OUTBOX };
}

function saveOutbox(sql: SqlLike, state: OutboxState): void {
  run(sql)`INSERT OR REPLACE INTO meta (key, value) VALUES (${OUTBOX_KEY}, ${JSON.stringify(state)})`;
}

/** The first closed turn not yet exported. */
function nextClosed(sql: SqlLike, after: number): { seq: number; turnId: string } | null {
  const row = rows<{ seq: number; turn_id: string | null }>(sql)`
    SELECT seq, json_extract(body, '$.turnId') AS turn_id FROM events
    WHERE kind = 'turnClose' AND author <> 'model' AND seq > ${after} ORDER BY seq LIMIT 1`[0];
  return row?.turn_id ? { seq: row.seq, turnId: row.turn_id } : null;
}

/** When the export outbox next needs the alarm (null: nothing to export, or no collector). */
export function traceExportDue(sql: SqlLike, config: ExportConfig | null, now: number): number | null {
  if (!config) return null;
  const state = outboxState(sql);
  return exportDue(nextClosed(sql, state.throughSeq) !== null, state, now);
}

export type ExportPorts = {
  sql: SqlLike;
  sessionId: string;
  config: ExportConfig;
  fetch: typeof fetch;
  now: () => number;
  /** Sets the one alarm from the current dues (called after the outbox's retry time is stored). */
  arm: () => Promise<void>;
  /** A crash boundary before a turn is sent (tests only). */
  beforeSend?: () => Promise<void>;
  /** At most this many turns per alarm, so a long backlog never holds the run loop (default 20). */
  maxTurns?: number;
};

/**
 * Sends every closed turn not yet exported, oldest first, until one is refused. Its retry is
 * stored and armed before it is sent, so a crash mid-send comes back; a 2xx moves the outbox on.
 * At least once: a turn sent again has the same ids, so the collector keeps one trace.
 */
export async function exportClosedTurns(p: ExportPorts): Promise<{ sent: number; refused: boolean }> {
  let sent = 0;
  for (;;) {
    // The rest of a backlog is still due now: the next alarm goes on with it.
    if (sent >= (p.maxTurns ?? 20)) return { sent, refused: false };
    const state = outboxState(p.sql);
    if (state.retryAt !== null && state.retryAt > p.now()) return { sent, refused: false };
    const next = nextClosed(p.sql, state.throughSeq);
    if (!next) return { sent, refused: false };
    await p.beforeSend?.();
    const body = JSON.stringify(readTurnTrace(p.sql, p.sessionId, next.turnId));
    const failed = afterAttempt(state, next.seq, false, p.now());
    saveOutbox(p.sql, failed);
    await p.arm();
    let ok = false;
    try {
      const res = await p.fetch(p.config.url, {
        method: "POST",
        headers: p.config.headers,
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      ok = res.ok;
    } catch {
      ok = false;
    }
    if (!ok) return { sent, refused: true };
    saveOutbox(p.sql, afterAttempt(failed, next.seq, true, p.now()));
    sent++;
  }
}
