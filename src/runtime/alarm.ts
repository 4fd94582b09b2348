/**
 * One owner for the alarm (docs/design.md#where-things-live): every part of the object that
 * needs waking states its next due time, and the object's single alarm is the earliest of them.
 * Pure: the driver (`SessionRuntime.arm`) gathers the due times and is the only caller of
 * `setAlarm`/`deleteAlarm`.
 */

/**
 * Everything the object owes a wake-up for, each as epoch ms; absent or null means nothing is
 * owed. A new kind of work adds one field here and fills it where the dues are gathered.
 */
export type AlarmDues = {
  /** The run loop: its lease while a slice runs, else when the open turn's next slice is due. */
  loop?: number | null;
  /** The features' next due time (`RuntimeFeature.nextDue`): a trigger firing, a queued run to start. */
  trigger?: number | null;
  /** The children outbox: a child's report or a parent's stops still to be acknowledged. */
  outbox?: number | null;
  /** The remote task the open turn waits for: its next poll (docs/design.md#remote-calls). */
  remote?: number | null;
  /** The trace-export outbox. */
  traceExport?: number | null;
};

/** The least time from one firing of the alarm to the next that a part can ask for. */
export const ALARM_FLOOR_MS = 1_000;

/** The last firing of the alarm: when it began, and the log's head then. */
export type Firing = { at: number; head: number };

/**
 * The earliest each part may be due: never before `now` (an overdue part is due now), and not
 * within `ALARM_FLOOR_MS` of the last firing, so that a part that stays due without moving
 * (whatever its bug) wakes the object at most once a second, never in a loop. The loop is
 * exempt once the log moved since that firing: a slice that worked and yielded goes on at once.
 */
export function dueFloors(last: Firing | null, head: number, now: number): Record<keyof AlarmDues, number> {
  const floor = last ? Math.max(now, last.at + ALARM_FLOOR_MS) : now;
  return {
    loop: last && head !== last.head ? now : floor,
    trigger: floor,
    outbox: floor,
    remote: floor,
    traceExport: floor,
  };
}

/** The earliest due time of `dues`, each part no earlier than its floor (default `now`); null: no alarm. */
export function nextAlarm(
  dues: AlarmDues,
  now: number,
  floors?: Partial<Record<keyof AlarmDues, number>>,
): number | null {
  let at: number | null = null;
  for (const [part, due] of Object.entries(dues) as [keyof AlarmDues, number | null | undefined][]) {
    if (typeof due !== "number" || !Number.isFinite(due)) continue;
    const floored = Math.max(due, floors?.[part] ?? now, now);
    if (at === null || floored < at) at = floored;
  }
  return at;
}

/**
 * What the run loop is doing, as the driver knows it. `wake` is what the last slice of the open
 * turn asked for when it ended: a time (a model retry, a failed slice's backoff, a child's create
 * to send again, a yield), or `"parked"` when it found nothing to do until a command arrives.
 */
export type LoopView = {
  turn: "none" | "runnable" | "blocked";
  /** The lease of a slice that is running, or null. */
  lease: number | null;
  wake: number | "parked" | null;
};

/**
 * When the loop is next due: a running slice's lease; else its last wish (a retry or backoff is
 * kept, a parked loop wants nothing); else, for a turn nobody has looked at yet (a command just
 * opened or moved it, the object restarted), now unless it waits for a human or a resume.
 */
export function loopDue(view: LoopView, now: number): number | null {
  if (view.turn === "none") return null;
  if (view.lease !== null) return view.lease;
  if (view.wake === "parked") return null;
  if (view.wake !== null) return view.wake;
  return view.turn === "runnable" ? now : null;
}

/** The outbox is due at its retry time, or now when nothing was tried yet; null when empty. */
export function outboxDue(pending: boolean, retryAt: number | null, now: number): number | null {
  if (!pending) return null;
  return retryAt ?? now;
}
