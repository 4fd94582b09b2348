/**
 * The schedule's driver: trigger commands and firings, each an event in the log first
 * (docs/API.md §6, §7.32). Decisions are `planFirings`'s; this file reads the cached tables,
 * commits drafts and says whether the loop has work.
 */
import type { EventDraft } from "../../log";
import { sessionWait } from "../../projections";
import type { RuntimeCtx } from "../../runtime/deps";
import { ApiError } from "../../runtime/errors";
import type { SqlLike } from "../../storage/sql";
import {
  dueTriggers,
  hasUnfinishedRun,
  lastRunOf,
  listRuns,
  listTriggers,
  oldestQueuedRun,
  readTrigger,
} from "./cache";
import { type Run, type Trigger, type TriggerSchedule, toRun, toTrigger } from "./facts";
import { firingDrafts, planFirings, runInputDraft } from "./firings";
import { STORED_TRIGGER_NAME } from "./schedule";

function hidden(delta: Record<string, unknown>): EventDraft {
  return { author: "user", modelVisibility: "hidden", actions: { stateDelta: delta } };
}

/** A new trigger: 409 for a name in use, 400 for an `at` not in the future. */
export function createTrigger(
  rt: RuntimeCtx,
  sql: SqlLike,
  input: { name: string; text: string; schedule: TriggerSchedule },
): Trigger {
  rt.require();
  if ("at" in input.schedule && Date.parse(input.schedule.at) <= rt.now())
    throw new ApiError("bad_request", "schedule.at: is in the past");
  if (readTrigger(sql, input.name)) throw new ApiError("conflict", `trigger ${input.name} exists`);
  rt.commit([hidden({ triggerCreated: { name: input.name, text: input.text, schedule: input.schedule } })]);
  return toTrigger(readTrigger(sql, input.name)!);
}

/** Whether a trigger of this name exists, whatever name older code let it have (the edge asks first, §7.1). */
export function triggerExists(sql: SqlLike, name: string): boolean {
  return STORED_TRIGGER_NAME.test(name) && readTrigger(sql, name) !== null;
}

/** Stops a trigger: it fires no more (a run it already started or queued goes on). */
export function deleteTrigger(rt: RuntimeCtx, sql: SqlLike, name: string): void {
  rt.require();
  if (!triggerExists(sql, name)) throw new ApiError("not_found", "unknown trigger");
  rt.commit([hidden({ triggerDeleted: { name } })]);
}

/** One page of triggers by name (docs/API.md#paging): `next` is the `after` of the next page. */
export function triggersOf(
  rt: RuntimeCtx,
  sql: SqlLike,
  page: { after: string | null; limit: number },
): { triggers: Trigger[]; next?: string } {
  rt.require();
  const found = listTriggers(sql, page.after, page.limit + 1);
  const triggers = found.slice(0, page.limit).map(toTrigger);
  return { triggers, ...(found.length > page.limit ? { next: triggers.at(-1)!.name } : {}) };
}

/**
 * One page of runs, newest first (docs/API.md#paging): `next` is the `before` of the next page.
 * The open turn's run shows `waiting` with its `waitId` while a wait holds it: a `wait_for`, the
 * step budget or a child at work (the session's own `wait`, docs/API.md#sub-sessions).
 */
export function runsOf(
  rt: RuntimeCtx,
  sql: SqlLike,
  page: { before: number | null; limit: number },
): { runs: Run[]; next?: string } {
  const s = rt.require();
  const turn = s.openTurn;
  const wait = sessionWait(s);
  const found = listRuns(sql, page.before, page.limit + 1);
  const rowsOfPage = found.slice(0, page.limit);
  return {
    runs: rowsOfPage.map((r) =>
      wait && turn && r.turnId === turn.turnId
        ? { ...toRun(r), state: "waiting" as const, waitId: wait.waitId }
        : toRun(r),
    ),
    ...(found.length > page.limit ? { next: String(rowsOfPage.at(-1)!.seq) } : {}),
  };
}

/**
 * Fires every due trigger once, in one block: missed firings collapse into one, because each
 * firing moves its trigger past now in the same transaction. True when a run started.
 */
export function fireDueTriggers(rt: RuntimeCtx, sql: SqlLike): boolean {
  const s = rt.summary;
  if (!s) return false;
  const firings = planFirings(dueTriggers(sql, rt.now()), {
    now: rt.now(),
    openTurnId: s.openTurn?.turnId ?? null,
    lastRunOf: (name) => lastRunOf(sql, name),
    unfinished: (name) => hasUnfinishedRun(sql, name),
    newId: () => crypto.randomUUID(),
  });
  if (firings.length === 0) return false;
  rt.commit(firings.flatMap(firingDrafts));
  return firings.some((f) => f.disposition === "start");
}

/** A run is queued and no turn is open: it is due to start now (after a crash between the two, too). */
export function queuedRunReady(rt: RuntimeCtx, sql: SqlLike): boolean {
  return rt.summary !== null && rt.summary.openTurn === null && oldestQueuedRun(sql) !== null;
}

/** docs/API.md §6: a firing queued behind another turn starts once no turn is open. True when it did. */
export function startQueuedRun(rt: RuntimeCtx, sql: SqlLike): boolean {
  const s = rt.summary;
  if (!s || s.openTurn) return false;
  const queued = oldestQueuedRun(sql);
  if (!queued?.trigger) return false;
  const turnId = crypto.randomUUID();
  rt.commit([runInputDraft({ runId: queued.runId, turnId, trigger: queued.trigger, text: queued.text ?? "" })]);
  return true;
}
