/**
 * Runs and triggers as projections of the log (docs/API.md §6, §7.12, §7.32): every turn is a run;
 * a trigger's firing is a hidden `stateDelta.triggerFired`; consecutive skips of one trigger
 * share one `skipped` run with a `count`. Pure reducers: the rows they return are cached in
 * SQLite beside the log and can be rebuilt by folding the log again.
 */
import type { Event } from "../../log";

export type { Run, RunOutcome, RunState, Trigger, TriggerSchedule } from "../../contract/work";

import type { Run, RunOutcome, RunState, Trigger, TriggerSchedule } from "../../contract/work";

export type RunRow = {
  runId: string;
  turnId: string | null;
  trigger: string | null;
  state: RunState;
  outcome: RunOutcome | null;
  startedAt: string;
  endedAt: string | null;
  /** Firings this row stands for: more than 1 only for coalesced skips. */
  count: number;
  /** The text a queued run enters with when it starts. */
  text: string | null;
  /** Seq of the run's first event: newest first means highest first. */
  seq: number;
};

export type TriggerRow = {
  name: string;
  text: string;
  schedule: TriggerSchedule;
  /** Epoch ms the trigger counts intervals from (its creation). */
  anchor: number;
  /** Epoch ms of the next firing, or null when it never fires again. */
  nextAt: number | null;
};

/** What a firing did: started a run, queued it behind another turn, or was skipped. */
export type Disposition = "start" | "queue" | "skip";

export type TriggerFired = { name: string; runId: string; dueAt: string; disposition: Disposition; text?: string };
export type TriggerCreated = { name: string; text: string; schedule: TriggerSchedule };

export function triggerFiredOf(e: Event): TriggerFired | null {
  const f = e.actions?.stateDelta?.triggerFired as Partial<TriggerFired> | undefined;
  if (!f || typeof f.name !== "string" || typeof f.runId !== "string") return null;
  const disposition = f.disposition === "queue" || f.disposition === "skip" ? f.disposition : "start";
  return { name: f.name, runId: f.runId, dueAt: String(f.dueAt ?? ""), disposition, text: f.text };
}

export type RunLookup = { byRun(runId: string): RunRow | null; byTurn(turnId: string): RunRow | null };

/**
 * Whether `e` can change a run or a trigger: a firing, a trigger created or deleted, a turn's
 * close, or a user's message (which opens a turn). Each of the three facts is committed alone in
 * its hidden event (kind `state:<fact>`), which lets a catch-up find them through the kind index.
 */
export function touchesWork(e: Pick<Event, "author" | "content" | "actions" | "turnId">): boolean {
  const a = e.actions;
  const d = a?.stateDelta;
  if (d && (d.triggerFired || d.triggerCreated || d.triggerDeleted)) return true;
  if (!e.turnId) return false;
  return !!a?.turnClose || (e.author === "user" && e.content?.type === "text");
}

/** The kinds of the events `touchesWork` accepts (a catch-up reads these only). */
export const WORK_KINDS = [
  "state:triggerFired",
  "state:triggerCreated",
  "state:triggerDeleted",
  "state",
  "turnClose",
  "text",
];

/** The run row `e` creates or changes, if any. */
export function reduceRun(e: Event, find: RunLookup): RunRow | null {
  const fired = triggerFiredOf(e);
  if (fired) {
    const prior = find.byRun(fired.runId);
    if (fired.disposition === "skip") {
      if (prior) return { ...prior, count: prior.count + 1, endedAt: e.at };
      return row(e, fired.runId, null, fired.name, "skipped", { endedAt: e.at });
    }
    if (prior) return null;
    if (fired.disposition === "queue") return row(e, fired.runId, null, fired.name, "waiting", { text: fired.text });
    return row(e, fired.runId, e.turnId ?? null, fired.name, "running", {});
  }
  const a = e.actions;
  if (a?.turnClose && e.turnId) {
    const open = find.byTurn(e.turnId);
    if (!open || open.state === "completed") return null;
    return { ...open, state: "completed", outcome: a.turnClose.reason, endedAt: e.at };
  }
  if (e.author === "user" && e.content?.type === "text" && e.turnId && !find.byTurn(e.turnId)) {
    const queued = e.runId ? find.byRun(e.runId) : null;
    if (queued) return { ...queued, turnId: e.turnId, state: "running", text: null };
    return row(e, e.runId ?? e.turnId, e.turnId, null, "running", {});
  }
  return null;
}

function row(
  e: Event,
  runId: string,
  turnId: string | null,
  trigger: string | null,
  state: RunState,
  extra: { endedAt?: string; text?: string },
): RunRow {
  return {
    runId,
    turnId,
    trigger,
    state,
    outcome: null,
    startedAt: e.at,
    endedAt: extra.endedAt ?? null,
    count: 1,
    text: extra.text ?? null,
    seq: e.seq,
  };
}

/** A change to the triggers: one created or re-timed, or one removed. */
export type TriggerChange = { kind: "put"; row: TriggerRow } | { kind: "remove"; name: string } | null;

/**
 * What `e` does to the triggers. `next` is the schedule function (`nextDue`), passed in so that
 * this module stays free of the cron library.
 */
export function reduceTrigger(
  e: Event,
  find: (name: string) => TriggerRow | null,
  next: (schedule: TriggerSchedule, after: number, anchor: number) => number | null,
): TriggerChange {
  const delta = e.actions?.stateDelta;
  if (!delta) return null;
  const created = delta?.triggerCreated as TriggerCreated | undefined;
  if (created) {
    const anchor = Date.parse(e.at);
    const row = { ...created, anchor, nextAt: next(created.schedule, anchor, anchor) };
    return { kind: "put", row };
  }
  const deleted = delta?.triggerDeleted as { name?: unknown } | undefined;
  if (deleted && typeof deleted.name === "string") return { kind: "remove", name: deleted.name };
  const fired = triggerFiredOf(e);
  if (!fired) return null;
  const t = find(fired.name);
  if (!t) return null;
  // docs/API.md §7.32: an `at` trigger is removed once it fires; others move past the firing's
  // time, so firings missed while the object was down collapse into this one.
  if ("at" in t.schedule) return { kind: "remove", name: t.name };
  return { kind: "put", row: { ...t, nextAt: next(t.schedule, Date.parse(e.at), t.anchor) } };
}

/** The public `Run` (docs/API.md §6). */
export function toRun(r: RunRow): Run {
  return {
    runId: r.runId,
    trigger: r.trigger,
    state: r.state,
    ...(r.outcome ? { outcome: r.outcome } : {}),
    startedAt: r.startedAt,
    ...(r.endedAt ? { endedAt: r.endedAt } : {}),
    ...(r.state === "skipped" ? { count: r.count } : {}),
  };
}

/** The public `Trigger` (docs/API.md §6). */
export function toTrigger(t: TriggerRow): Trigger {
  return {
    name: t.name,
    text: t.text,
    schedule: t.schedule,
    nextAt: t.nextAt === null ? null : new Date(t.nextAt).toISOString(),
  };
}
