/**
 * The `triggers` and `runs` tables (migration 0003): caches of the log, kept by folding each
 * committed event with the pure reducers of `./facts.ts` inside the commit's
 * transaction, and rebuilt from the log when they are behind it.
 */
import { z } from "zod";
import type { Event, EventStore } from "../../log";
import { rows, run, type SqlLike } from "../../storage/sql";
import { type RunRow, reduceRun, reduceTrigger, type TriggerRow, touchesWork, WORK_KINDS } from "./facts";
import { nextDue } from "./schedule";

const Schedule = z.union([
  z.object({ everySeconds: z.number() }),
  z.object({ cron: z.string() }),
  z.object({ at: z.string() }),
]);
const TriggerBody = z.object({
  name: z.string(),
  text: z.string(),
  schedule: Schedule,
  anchor: z.number(),
  nextAt: z.number().nullable(),
});
const RunBody = z.object({
  runId: z.string(),
  turnId: z.string().nullable(),
  trigger: z.string().nullable(),
  state: z.enum(["running", "waiting", "completed", "skipped"]),
  outcome: z.enum(["completed", "stopped", "failed"]).nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  count: z.number(),
  text: z.string().nullable(),
  seq: z.number(),
});

function parseRow<T>(schema: z.ZodType<T>, text: string | undefined): T | null {
  if (text === undefined) return null;
  const r = schema.safeParse(JSON.parse(text));
  return r.success ? r.data : null;
}

type Body = { body: string };

export function readTrigger(sql: SqlLike, name: string): TriggerRow | null {
  return parseRow(TriggerBody, rows<Body>(sql)`SELECT body FROM triggers WHERE name = ${name}`[0]?.body);
}

/** By name, those after `after`, at most `limit`. */
export function listTriggers(sql: SqlLike, after: string | null, limit: number): TriggerRow[] {
  const found =
    after === null
      ? rows<Body>(sql)`SELECT body FROM triggers ORDER BY name LIMIT ${limit}`
      : rows<Body>(sql)`SELECT body FROM triggers WHERE name > ${after} ORDER BY name LIMIT ${limit}`;
  return found.flatMap((r) => parseRow(TriggerBody, r.body) ?? []);
}

/** Triggers due at or before `now`. */
export function dueTriggers(sql: SqlLike, now: number): TriggerRow[] {
  return rows<Body>(sql)`SELECT body FROM triggers WHERE next_at IS NOT NULL AND next_at <= ${now}`.flatMap(
    (r) => parseRow(TriggerBody, r.body) ?? [],
  );
}

/** Epoch ms of the earliest firing still to come, or null. */
export function nextTriggerDue(sql: SqlLike): number | null {
  const r = rows<{ at: number | null }>(sql)`SELECT MIN(next_at) AS at FROM triggers WHERE next_at IS NOT NULL`[0];
  return r?.at ?? null;
}

function readRun(sql: SqlLike, where: "run" | "turn", id: string): RunRow | null {
  const found =
    where === "run"
      ? rows<Body>(sql)`SELECT body FROM runs WHERE run_id = ${id}`
      : rows<Body>(sql)`SELECT body FROM runs WHERE turn_id = ${id}`;
  return parseRow(RunBody, found[0]?.body);
}

/** The trigger's newest run. */
export function lastRunOf(sql: SqlLike, trigger: string): RunRow | null {
  const r = rows<Body>(sql)`SELECT body FROM runs WHERE trigger_name = ${trigger} ORDER BY seq DESC LIMIT 1`[0];
  return parseRow(RunBody, r?.body);
}

/** Whether the trigger has a run that is running or queued. */
export function hasUnfinishedRun(sql: SqlLike, trigger: string): boolean {
  return (
    rows(sql)`SELECT 1 FROM runs WHERE trigger_name = ${trigger} AND state IN ('running', 'waiting') LIMIT 1`.length > 0
  );
}

/** The oldest run queued behind another turn, if any. */
export function oldestQueuedRun(sql: SqlLike): RunRow | null {
  const r = rows<Body>(
    sql,
  )`SELECT body FROM runs INDEXED BY runs_waiting WHERE state = 'waiting' AND turn_id IS NULL ORDER BY seq LIMIT 1`[0];
  return parseRow(RunBody, r?.body);
}

/**
 * The turn a run id names, answered by key, never by scanning bodies: the run that opened the
 * turn is a row of the runs table; a takeover's run (`stateDelta.runStarted`, docs/API.md#runs)
 * is found among the takeover events by their kind. `undefined`: not a run of this session;
 * `null`: a run with no turn (queued or skipped).
 */
/** Run ids as the runtime mints them (UUIDs), with room; anything else names no run. */
export const RUN_ID = /^[A-Za-z0-9-]{1,100}$/;

/**
 * The turn a run belongs to, or undefined for a run this session never had (404, docs/API.md §7.1),
 * looked up by key in the runs projection (exact and case-sensitive, whatever the id's length).
 */
export function turnOfRun(sql: SqlLike, runId: string): string | null | undefined {
  if (!RUN_ID.test(runId)) return undefined;
  return turnOfRunId(sql, runId);
}

export function turnOfRunId(sql: SqlLike, runId: string): string | null | undefined {
  const row = rows<{ turn_id: string | null }>(sql)`SELECT turn_id FROM runs WHERE run_id = ${runId}`[0];
  if (row) return row.turn_id;
  const takeover = rows<{ turn_id: string | null }>(sql)`SELECT json_extract(body, '$.turnId') AS turn_id FROM events
    WHERE kind = 'state:runStarted' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND json_extract(body, '$.actions.stateDelta.runStarted.runId') = ${runId}
    LIMIT 1`[0];
  return takeover ? takeover.turn_id : undefined;
}

/** Newest first, those older than `before` (a run's first seq), at most `limit`. */
export function listRuns(sql: SqlLike, before: number | null, limit: number): RunRow[] {
  const found =
    before === null
      ? rows<Body>(sql)`SELECT body FROM runs ORDER BY seq DESC LIMIT ${limit}`
      : rows<Body>(sql)`SELECT body FROM runs WHERE seq < ${before} ORDER BY seq DESC LIMIT ${limit}`;
  return found.flatMap((r) => parseRow(RunBody, r.body) ?? []);
}

function writeRun(sql: SqlLike, r: RunRow) {
  run(sql)`INSERT INTO runs (run_id, turn_id, trigger_name, state, seq, body)
    VALUES (${r.runId}, ${r.turnId}, ${r.trigger}, ${r.state}, ${r.seq}, ${JSON.stringify(r)})
    ON CONFLICT (run_id) DO UPDATE SET turn_id = excluded.turn_id, trigger_name = excluded.trigger_name,
      state = excluded.state, seq = excluded.seq, body = excluded.body`;
}

/**
 * Folds committed events into both tables; call inside the transaction that appended them. The
 * marker moves with each event that can change a run or trigger (a commit of any other event
 * writes nothing), so a catch-up reads those events after it only.
 */
export function applyWorkEvents(sql: SqlLike, events: Event[]): void {
  let last: number | null = null;
  for (const e of events) {
    if (!touchesWork(e)) continue;
    const r = reduceRun(e, { byRun: (id) => readRun(sql, "run", id), byTurn: (id) => readRun(sql, "turn", id) });
    if (r) writeRun(sql, r);
    const t = reduceTrigger(e, (name) => readTrigger(sql, name), nextDue);
    if (t?.kind === "put")
      run(sql)`INSERT INTO triggers (name, next_at, body)
        VALUES (${t.row.name}, ${t.row.nextAt}, ${JSON.stringify(t.row)})
        ON CONFLICT (name) DO UPDATE SET next_at = excluded.next_at, body = excluded.body`;
    if (t?.kind === "remove") run(sql)`DELETE FROM triggers WHERE name = ${t.name}`;
    last = e.seq;
  }
  if (last !== null)
    run(sql)`INSERT INTO meta (key, value) VALUES ('work_through', ${String(last)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** Whether `applyWorkEvents` writes anything for these events. */
export function touchesWorkEvents(events: Event[]): boolean {
  return events.some(touchesWork);
}

/**
 * Brings the tables up to the head (a log older than migration 0003, or a dropped cache): the
 * events after the marker that can change them, found through the kind index, in pages.
 */
export function catchUpWork(sql: SqlLike, store: EventStore, transactionSync: <T>(fn: () => T) => T): void {
  const through = Number(
    rows<{ value: string }>(sql)`SELECT value FROM meta WHERE key = 'work_through'`[0]?.value ?? 0,
  );
  if (store.head().highWater <= through) return;
  for (let after = through; ; ) {
    const page = store.readKindsAfter(WORK_KINDS, after, 1000);
    if (page.length === 0) return;
    transactionSync(() => applyWorkEvents(sql, page));
    after = page.at(-1)!.seq;
  }
}
