/**
 * A2A push notifications inside the session object (docs/API.md#a2a-server): a task's configs,
 * and the outbox of status changes to deliver. A row enters the outbox in the same commit as the
 * event it reports (`enqueueFor`, the feature's `apply`), so no change is lost to a crash; the
 * alarm delivers it (`./push-deliver.ts`) until the receiver answers 2xx: at least once.
 */
import { z } from "zod";
import { ApiError } from "../../contract";
import type { Event } from "../../log";
import { rows, run, type SqlLike } from "../../storage/sql";
import type { TurnState } from "./turn-read";

export type PushConfig = {
  taskId: string;
  id: string;
  url: string;
  token: string | null;
  authentication: { scheme: string; credentials: string } | null;
};

const ConfigBody = z.object({
  taskId: z.string(),
  id: z.string(),
  url: z.string(),
  token: z.string().nullable(),
  authentication: z.object({ scheme: z.string(), credentials: z.string() }).nullable(),
});

/** At most this many configs per task. */
export const MAX_CONFIGS = 10;

export type OutboxRow = {
  task_id: string;
  config_id: string;
  seq: number;
  state: string;
  at: string;
  attempts: number;
  next_at: number;
};

/**
 * The state an event moves its turn's task to, if it is one a receiver is told of: the turn's
 * close; it asks for input (an approval, a `wait_for`, a step-budget pause); it goes on again
 * (the approval decided, the wait answered, the budget resumed).
 */
export function reportedState(e: Event): TurnState | null {
  const a = e.actions;
  const close = a?.turnClose?.reason;
  if (close) return close === "completed" ? "completed" : close === "stopped" ? "canceled" : "failed";
  if (a?.permissionRequest || a?.toolDispatch?.tool === WAIT_TOOL || a?.stateDelta?.budgetWait) return "input-required";
  const answered = e.content?.type === "functionResponse" && e.content.name === WAIT_TOOL;
  if (a?.permissionDecision || answered || a?.stateDelta?.budgetResume) return "working";
  return null;
}

const WAIT_TOOL = "wait_for";

export function touchesPush(events: Event[]): boolean {
  return events.some((e) => e.turnId !== undefined && reportedState(e) !== null);
}

function enqueue(sql: SqlLike, taskId: string, configId: string, seq: number, state: TurnState, at: string) {
  run(sql)`INSERT OR IGNORE INTO a2a_push_outbox (task_id, config_id, seq, state, at, attempts, next_at)
    VALUES (${taskId}, ${configId}, ${seq}, ${state}, ${at}, 0, 0)`;
}

/** Inside the commit: one outbox row per config of the turn for each change these events make. */
export function enqueueFor(sql: SqlLike, events: Event[]): void {
  for (const e of events) {
    const state = e.turnId ? reportedState(e) : null;
    if (!state || !e.turnId) continue;
    const configs = rows<{ task_id: string; config_id: string }>(sql)`
      SELECT task_id, config_id FROM a2a_push_configs WHERE turn_id = ${e.turnId}`;
    for (const c of configs) enqueue(sql, c.task_id, c.config_id, e.seq, state, e.at);
  }
}

/**
 * Saves a config (replacing one of the same id). A task that already finished or asks for input
 * is reported to it at once, so a config set after the fact still hears the outcome.
 */
export function saveConfig(
  sql: SqlLike,
  turnId: string,
  config: PushConfig,
  now: { state: TurnState; head: number; at: string },
): PushConfig {
  const count = rows<{ n: number }>(sql)`
    SELECT COUNT(*) AS n FROM a2a_push_configs WHERE task_id = ${config.taskId} AND config_id <> ${config.id}`[0]!.n;
  if (count >= MAX_CONFIGS) throw new ApiError("bad_request", `a task has at most ${MAX_CONFIGS} push configs`);
  run(sql)`INSERT OR REPLACE INTO a2a_push_configs (task_id, config_id, turn_id, body)
    VALUES (${config.taskId}, ${config.id}, ${turnId}, ${JSON.stringify(config)})`;
  if (now.state !== "working") enqueue(sql, config.taskId, config.id, now.head, now.state, now.at);
  return config;
}

export function readConfig(sql: SqlLike, taskId: string, id: string): PushConfig | null {
  const row = rows<{ body: string }>(sql)`
    SELECT body FROM a2a_push_configs WHERE task_id = ${taskId} AND config_id = ${id}`[0];
  if (!row) return null;
  const parsed = ConfigBody.safeParse(JSON.parse(row.body));
  return parsed.success ? parsed.data : null;
}

export function listConfigs(sql: SqlLike, taskId: string): PushConfig[] {
  return rows<{ body: string }>(sql)`
    SELECT body FROM a2a_push_configs WHERE task_id = ${taskId} ORDER BY config_id`.flatMap((r) => {
    const parsed = ConfigBody.safeParse(JSON.parse(r.body));
    return parsed.success ? [parsed.data] : [];
  });
}

/** Deletes a config and what is still to be delivered to it. */
export function deleteConfig(sql: SqlLike, taskId: string, id: string): boolean {
  const found = readConfig(sql, taskId, id) !== null;
  run(sql)`DELETE FROM a2a_push_configs WHERE task_id = ${taskId} AND config_id = ${id}`;
  run(sql)`DELETE FROM a2a_push_outbox WHERE task_id = ${taskId} AND config_id = ${id}`;
  return found;
}

/** When the outbox next needs the alarm, or null when it is empty. */
export function outboxDue(sql: SqlLike): number | null {
  return rows<{ at: number | null }>(sql)`SELECT MIN(next_at) AS at FROM a2a_push_outbox`[0]?.at ?? null;
}

export function dueRows(sql: SqlLike, now: number, limit: number): OutboxRow[] {
  return rows<OutboxRow>(sql)`
    SELECT task_id, config_id, seq, state, at, attempts, next_at FROM a2a_push_outbox
      WHERE next_at <= ${now} ORDER BY next_at, seq LIMIT ${limit}`;
}

/** Records a try before it is made: a kill during the request leaves it due again at `nextAt`. */
export function markTried(sql: SqlLike, r: OutboxRow, nextAt: number): void {
  run(sql)`UPDATE a2a_push_outbox SET attempts = ${r.attempts + 1}, next_at = ${nextAt}
    WHERE task_id = ${r.task_id} AND config_id = ${r.config_id} AND seq = ${r.seq}`;
}

export function removeRow(sql: SqlLike, r: OutboxRow): void {
  run(sql)`DELETE FROM a2a_push_outbox WHERE task_id = ${r.task_id} AND config_id = ${r.config_id} AND seq = ${r.seq}`;
}
