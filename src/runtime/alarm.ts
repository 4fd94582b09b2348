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
  /** The trace-export outbox. */
  traceExport?: number | null;
};

/** The earliest due time of `dues`, never before `now` (an overdue part is due now); null: no alarm. */
export function nextAlarm(dues: AlarmDues, now: number): number | null {
  let at: number | null = null;
  for (const due of Object.values(dues) as (number | null | undefined)[])
    if (typeof due === "number" && Number.isFinite(due) && (at === null || due < at)) at = due;
  return at === null ? null : Math.max(at, now);
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
