/**
 * A turn's trace read from storage, and the export outbox (docs/API.md#traces): the seq of the
 * last exported `turnClose` kept in `meta`, the next closed turn after it POSTed until a 2xx.
 * A trace is built from the log alone, in bounded memory: the turn's range (the runs index
 * where it starts when it has a run; else its events), read a page at a time, each event
 * without its text, arguments or results.
 */
import { ApiError, deadline } from "../contract";
import type { Event } from "../log";
import { rows, run, type SqlLike } from "../storage";
import {
  type Answer,
  afterAttempt,
  answerOf,
  beforeAttempt,
  built,
  EMPTY_OUTBOX,
  EXPORT_MAX_BYTES,
  type ExportConfig,
  exportDue,
  MAX_BUILD_TRIES,
  type OutboxState,
} from "./export";
import { requestBodies } from "./otlp";
import { buildTurnTrace, type OtlpTrace } from "./spans";

const OUTBOX_KEY = "trace_export";
export const SERVICE_NAME = "highwater";
/** Events read per page while a trace is built. */
const PAGE = 200;

type Range = { turnId: string; from: number; through: number };

/** The `turnClose` of `turnId` at or after `from`, through the kind index. */
function closeOf(sql: SqlLike, turnId: string, from: number): number | null {
  return (
    rows<{ seq: number }>(sql)`
      SELECT seq FROM events WHERE kind = 'turnClose' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq >= ${from}
        AND json_extract(body, '$.turnId') = ${turnId} ORDER BY seq LIMIT 1`[0]?.seq ?? null
  );
}

/**
 * Where `turnId` lies in the log (default: the last closed turn), or 404. A turn with a run
 * starts at its first run's seq; a turn without one (a fork's copy of the parent's open turn,
 * closed in the fork's first block) is found by its close and starts at its first event.
 */
export function turnRange(sql: SqlLike, turnId: string | null): Range {
  if (turnId === null) {
    const last = rows<{ seq: number; turn_id: string | null }>(sql)`
      SELECT seq, json_extract(body, '$.turnId') AS turn_id FROM events
      WHERE kind = 'turnClose' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') ORDER BY seq DESC LIMIT 1`[0];
    if (!last?.turn_id) throw new ApiError("not_found", "no closed turn");
    turnId = last.turn_id;
  }
  const started = rows<{ seq: number | null }>(sql)`SELECT MIN(seq) AS seq FROM runs WHERE turn_id = ${turnId}`[0]?.seq;
  if (typeof started === "number") {
    const through =
      closeOf(sql, turnId, started) ?? rows<{ seq: number }>(sql)`SELECT MAX(seq) AS seq FROM events`[0]!.seq;
    return { turnId, from: started, through };
  }
  const close = closeOf(sql, turnId, 0);
  if (close === null) throw new ApiError("not_found", "unknown turn");
  const from = rows<{ seq: number }>(sql)`
    SELECT MIN(seq) AS seq FROM events WHERE seq <= ${close} AND json_extract(body, '$.turnId') = ${turnId}`[0]!.seq;
  return { turnId, from, through: close };
}

/**
 * The turn's own events, a page at a time, each without what a trace never holds: texts,
 * arguments, results, messages, and of its state changes only those a span reads.
 */
function* turnEvents(sql: SqlLike, r: Range): Generator<Event> {
  for (let after = r.from - 1; ; ) {
    const page = rows<{ seq: number; body: string; delta: string }>(sql)`
      SELECT seq,
        json_remove(body, '$.content.text', '$.content.args', '$.content.response', '$.content.message',
          '$.content.signature', '$.actions.permissionRequest.args', '$.actions.permissionDecision.reason',
          '$.actions.stateDelta') AS body,
        json_object(
          'modelAttempt', json_object(
            'invocationId', json_extract(body, '$.actions.stateDelta.modelAttempt.invocationId'),
            'attempt', json_extract(body, '$.actions.stateDelta.modelAttempt.attempt'),
            'code', json_extract(body, '$.actions.stateDelta.modelAttempt.code'),
            'retryAt', json_extract(body, '$.actions.stateDelta.modelAttempt.retryAt')),
          'finishReason', json_extract(body, '$.actions.stateDelta.finishReason'),
          'runStarted', json(json_extract(body, '$.actions.stateDelta.runStarted')),
          'recoveryNotice', json(json_extract(body, '$.actions.stateDelta.recoveryNotice'))) AS delta
      FROM events WHERE seq > ${after} AND seq <= ${r.through} AND json_extract(body, '$.turnId') = ${r.turnId}
      ORDER BY seq LIMIT ${PAGE}`;
    for (const row of page) yield withDelta(JSON.parse(row.body) as Event, JSON.parse(row.delta));
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.seq;
  }
}

/** The state changes a span reads, put back on the event (those it does not have are left out). */
function withDelta(e: Event, delta: Record<string, unknown>): Event {
  const kept = Object.fromEntries(
    Object.entries(delta).filter(([k, v]) => v !== null && (k !== "modelAttempt" || hasInvocation(v))),
  );
  if (Object.keys(kept).length === 0) return e;
  return { ...e, actions: { ...e.actions, stateDelta: kept } };
}

function hasInvocation(v: unknown): boolean {
  return typeof (v as { invocationId?: unknown }).invocationId === "string";
}

/** The model as of `seq`: the latest `stateDelta.model` (a PATCH) before it, else the session's own. */
function modelAt(sql: SqlLike, seq: number): { provider: string; name: string } {
  const patched = rows<{ model: string | null }>(sql)`
    SELECT json_extract(body, '$.actions.stateDelta.model') AS model FROM events
    WHERE kind IN ('state', 'state:model') AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq < ${seq}
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
  run(sql)`INSERT INTO meta (key, value) VALUES (${OUTBOX_KEY}, ${JSON.stringify(state)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** The first closed turn not yet exported. */
function nextClosed(sql: SqlLike, after: number): { seq: number; turnId: string } | null {
  const row = rows<{ seq: number; turn_id: string | null }>(sql)`
    SELECT seq, json_extract(body, '$.turnId') AS turn_id FROM events
    WHERE kind = 'turnClose' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq > ${after} ORDER BY seq LIMIT 1`[0];
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
  /** The largest request body (default the collector's usual 4 MiB): a larger trace goes in several. */
  maxBytes?: number;
  /** Where a dropped turn is said (default the console). */
  warn?: (message: string) => void;
};

/**
 * Sends every closed turn not yet exported, oldest first, until one must wait. Its retry is
 * stored and armed before the trace is even built, so a crash building or sending it comes back
 * after the backoff. A 2xx moves the outbox on; so does a status OTLP/HTTP says not to retry (the
 * turn is recorded as dropped with it), and a turn that cannot be built. At least once: a turn
 * sent again has the same ids, so the collector keeps one trace.
 */
export async function exportClosedTurns(p: ExportPorts): Promise<{ sent: number; refused: boolean }> {
  const warn = p.warn ?? ((m: string) => console.warn(m));
  let sent = 0;
  for (let tried = 0; ; tried++) {
    // The rest of a backlog is still due now: the next alarm goes on with it.
    if (tried >= (p.maxTurns ?? 20)) return { sent, refused: false };
    const state = outboxState(p.sql);
    if (state.retryAt !== null && state.retryAt > p.now()) return { sent, refused: false };
    const next = nextClosed(p.sql, state.throughSeq);
    if (!next) return { sent, refused: false };
    const turn = { turnId: next.turnId, closeSeq: next.seq };
    await p.beforeSend?.();
    const pending = beforeAttempt(state, p.now(), next.seq);
    saveOutbox(p.sql, pending);
    await p.arm();
    let bodies: string[];
    try {
      // Builds of this turn that began and never ended killed the object: it is not built again.
      if (pending.building!.tries > MAX_BUILD_TRIES) throw new Error(`${MAX_BUILD_TRIES} builds did not finish`);
      bodies = requestBodies(readTurnTrace(p.sql, p.sessionId, next.turnId), p.maxBytes ?? EXPORT_MAX_BYTES);
    } catch (err) {
      saveOutbox(p.sql, afterAttempt(pending, turn, { kind: "unbuildable" }, p.now()));
      warn(`highwater: trace export dropped turn ${next.turnId}: it could not be built (${String(err)})`);
      continue;
    }
    saveOutbox(p.sql, built(pending));
    const answer = await sendAll(p, bodies);
    saveOutbox(p.sql, afterAttempt(built(pending), turn, answer, p.now()));
    if (answer.kind === "retry") return { sent, refused: true };
    if (answer.kind === "dropped")
      warn(`highwater: trace export dropped turn ${next.turnId}: the collector answered ${answer.status}`);
    else sent++;
  }
}

/** Each body in turn; the first answer that is not a 2xx is the turn's. */
async function sendAll(p: ExportPorts, bodies: string[]): Promise<Answer> {
  for (const body of bodies) {
    let res: { status: number; retryAfter: string | null } | null = null;
    const limit = deadline(10_000);
    try {
      const r = await p.fetch(p.config.url, {
        method: "POST",
        headers: p.config.headers,
        body,
        signal: limit.signal,
      });
      await r.body?.cancel();
      res = { status: r.status, retryAfter: r.headers.get("retry-after") };
    } catch {
      res = null;
    } finally {
      limit.clear();
    }
    const answer = answerOf(res, p.now());
    if (answer.kind !== "sent") return answer;
  }
  return { kind: "sent" };
}
