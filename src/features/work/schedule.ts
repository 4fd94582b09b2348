/**
 * Trigger schedules (CONTRACT §6, §7.32) and the one alarm (DESIGN §4), as pure functions of
 * the clock they are given: when a schedule is next due, and which time the object's single
 * alarm must hold when both the run lease and the schedule want it.
 */
import { Cron } from "croner";

export type Schedule = { everySeconds: number } | { cron: string } | { at: string };

/** CONTRACT §7.32: trigger names. */
export const TRIGGER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Why a cron pattern is refused, or null: five fields (UTC), parsed by croner, never by hand. */
export function cronProblem(pattern: string): string | null {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) return `cron: expected five fields, got ${fields.length}`;
  try {
    new Cron(pattern, { timezone: "UTC", paused: true });
    return null;
  } catch (err) {
    return `cron: ${(err as Error).message}`;
  }
}

/**
 * The first time `schedule` is due strictly after `after` (epoch ms), or null when it never is
 * again. `anchor` is where an interval counts from (the trigger's creation), so that a trigger
 * keeps its phase; an `at` schedule is due once, at its time, whatever `after` says.
 */
export function nextDue(schedule: Schedule, after: number, anchor: number): number | null {
  if ("at" in schedule) return Date.parse(schedule.at);
  if ("everySeconds" in schedule) {
    const period = schedule.everySeconds * 1000;
    if (after < anchor) return anchor + period;
    return anchor + (Math.floor((after - anchor) / period) + 1) * period;
  }
  const next = new Cron(schedule.cron, { timezone: "UTC", paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/**
 * DESIGN §4: the object keeps one alarm, at the earliest of what the run loop asks for (its
 * lease, a retry, now) and the next trigger due; null means no alarm at all.
 */
export function nextAlarm(loop: number | null, scheduleDue: number | null): number | null {
  if (loop === null) return scheduleDue;
  if (scheduleDue === null) return loop;
  return Math.min(loop, scheduleDue);
}
