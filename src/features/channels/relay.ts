/**
 * The session's side of a channel (docs/design.md#channels): a session bound to a thread keeps,
 * inside each commit's transaction, the reports its events make (`channel_reports`), and hands
 * them to the channel's object from its alarm (`deliver`), each attempt's retry time stored
 * before it is sent. So a report is never lost to a crash, and the channel object's outbox key
 * (the event's seq) makes a report handed over twice one post.
 */
import type { Event, EventStore } from "../../log";
import { failpoint } from "../../runtime/failpoints";
import type { DeliverPort } from "../../runtime/feature";
import { rows, run, type SqlLike } from "../../storage/sql";
import type { ThreadRef } from "./platform";
import { BIND_KEY, mayReport, type Report, reportOf, type TurnLookup } from "./reports";

export type Binding = { name: string; kind: "slack" | "telegram"; thread: string; link: string | null; ref: ThreadRef };

const TABLES = [
  "CREATE TABLE IF NOT EXISTS channel_binding (k INTEGER PRIMARY KEY CHECK (k = 1), binding TEXT NOT NULL, through INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS channel_reports (seq INTEGER PRIMARY KEY, report TEXT NOT NULL, next_at INTEGER NOT NULL, tries INTEGER NOT NULL)",
];

/** The tables exist from `catchUp` on; a runtime built without it (a test's) gets them on first use. */
const ready = new WeakSet<SqlLike>();
function ensureTables(sql: SqlLike): void {
  if (ready.has(sql)) return;
  for (const t of TABLES) sql.exec(t);
  ready.add(sql);
}

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

const bindingOf = (e: Event): Binding | null => (e.actions?.stateDelta?.[BIND_KEY] as Binding | undefined) ?? null;

type Row = { binding: Binding; through: number };

function readRow(sql: SqlLike): Row | null {
  ensureTables(sql);
  const r = rows<{ binding: string; through: number }>(
    sql,
  )`SELECT binding, through FROM channel_binding WHERE k = 1`[0];
  return r ? { binding: JSON.parse(r.binding), through: r.through } : null;
}

/** How far back a closed turn's words are looked for (the turn's own events are near the head). */
const LOOKBACK = 2_000;

/**
 * A closed turn's words, read from the log's rows in the commit's transaction (as the MCP
 * server's task state reads them): committed events only, so a rebuild reads the same.
 */
function turnLookup(sql: SqlLike): TurnLookup {
  const last = (turnId: string, seq: number, type: "text" | "error"): Event | null => {
    const r = rows<{ body: string }>(sql)`
      SELECT body FROM events WHERE seq <= ${seq} AND seq > ${seq - LOOKBACK}
        AND json_extract(body, '$.turnId') = ${turnId} AND json_extract(body, '$.content.type') = ${type}
        AND (${type} = 'error' OR (author = 'model' AND visibility = 'visible'))
      ORDER BY seq DESC LIMIT 1`[0];
    return r ? (JSON.parse(r.body) as Event) : null;
  };
  return {
    answer(turnId, seq) {
      const c = last(turnId, seq, "text")?.content;
      if (c?.type !== "text") return null;
      return typeof c.text === "string" ? c.text : "(a long answer: read it in the console)";
    },
    error(turnId, seq) {
      const c = last(turnId, seq, "error")?.content;
      return c?.type === "error" ? `${c.code}: ${c.message}` : null;
    },
  };
}

/** Folds committed events: the binding, then each later event's report into `channel_reports`. */
export function applyRelay(sql: SqlLike, events: Event[]): void {
  let row = readRow(sql);
  const before = row;
  for (const e of events) {
    if (!row) {
      const binding = bindingOf(e);
      if (binding) row = { binding, through: e.seq };
      continue;
    }
    if (e.seq <= row.through) continue;
    const report = reportOf(e, turnLookup(sql));
    if (report)
      run(sql)`INSERT OR IGNORE INTO channel_reports (seq, report, next_at, tries)
        VALUES (${e.seq}, ${JSON.stringify(report)}, 0, 0)`;
    row = { ...row, through: e.seq };
  }
  if (!row || row === before) return;
  run(sql)`INSERT INTO channel_binding (k, binding, through) VALUES (1, ${JSON.stringify(row.binding)}, ${row.through})
    ON CONFLICT (k) DO UPDATE SET through = excluded.through`;
}

/**
 * Whether `applyRelay` has anything to do: only in a session bound to a thread (its slice, set by
 * `foldRelay` from the binding event, is there) and only for events that may make a report. An
 * unbound session's steps never read the binding row.
 */
export function touchesRelay(events: Event[], slice: unknown): boolean {
  return slice !== undefined && events.some(mayReport);
}

/** Creates the tables and folds whatever was committed since the last fold (none, normally). */
export function catchUpRelay(sql: SqlLike, store: EventStore, transactionSync: <T>(fn: () => T) => T): void {
  transactionSync(() => {
    ensureTables(sql);
    const row = readRow(sql);
    if (!row) return;
    let after = row.through;
    for (let page = store.readAfter(after, 500); page.length > 0; page = store.readAfter(after, 500)) {
      applyRelay(sql, page);
      after = page.at(-1)!.seq;
    }
  });
}

export function relayDue(sql: SqlLike): number | null {
  ensureTables(sql);
  return rows<{ at: number | null }>(sql)`SELECT MIN(next_at) AS at FROM channel_reports`[0]?.at ?? null;
}

type ChannelStub = {
  report(name: string, input: { sessionId: string; seq: number; thread: ThreadRef; report: Report }): Promise<unknown>;
};

/** Hands due reports to the channel's object, in seq order, stopping at the first failure. */
export async function deliverRelay(port: DeliverPort): Promise<void> {
  const { sql } = port;
  const row = readRow(sql);
  if (!row) return;
  const due = rows<{ seq: number; report: string; tries: number }>(
    sql,
  )`SELECT seq, report, tries FROM channel_reports WHERE next_at <= ${port.now()} ORDER BY seq LIMIT 50`;
  if (due.length === 0) return;
  const ns = port.env.CHANNEL_OBJECTS as DurableObjectNamespace | undefined;
  for (const r of due) {
    const retryAt = port.now() + Math.min(RETRY_FIRST_MS * 2 ** r.tries, RETRY_MAX_MS);
    run(sql)`UPDATE channel_reports SET next_at = ${retryAt}, tries = tries + 1 WHERE seq = ${r.seq}`;
    if (!ns) return;
    const report = JSON.parse(r.report) as Report;
    if (report.kind === "answer") await failpoint(port.env, "F19");
    const stub = ns.get(ns.idFromName(row.binding.name)) as unknown as ChannelStub;
    await stub.report(row.binding.name, { sessionId: port.sessionId, seq: r.seq, thread: row.binding.ref, report });
    run(sql)`DELETE FROM channel_reports WHERE seq = ${r.seq}`;
  }
}

/** The feature's slice: the public `channel` of the Session (docs/API.md#channels). */
export function foldRelay(slice: unknown, e: Event): unknown {
  if (slice) return slice;
  const b = bindingOf(e);
  return b ? { session: { channel: { name: b.name, kind: b.kind, thread: b.thread, link: b.link } } } : slice;
}
