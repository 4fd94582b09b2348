/**
 * Trigger schedules (docs/API.md §6, §7.32), as pure functions of the clock they are given: when a
 * schedule is next due (the object's one alarm takes it among the others, `alarm.ts`).
 */
import { Cron } from "croner";

export type Schedule = { everySeconds: number } | { cron: string } | { at: string };

/**
 * A new trigger's name (docs/API.md#work-beyond-one-turn): never starting with a dot, so that
 * no name is a path segment URL normalisation rewrites (`.` and `..` could never be deleted).
 */
export const TRIGGER_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/** Any name a trigger may have, including one older code accepted (`.`, `..`, `.x`): still removable. */
export const STORED_TRIGGER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Why a cron pattern is refused, or null: five fields (UTC), parsed by croner, never by hand,
 * and due at least once after `now` (docs/API.md#work-beyond-one-turn).
 */
export function cronProblem(pattern: string, now = Date.now()): string | null {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) return `cron: expected five fields, got ${fields.length}`;
  let cron: Cron;
  try {
    cron = new Cron(pattern, { timezone: "UTC", paused: true });
  } catch (err) {
    return `cron: ${(err as Error).message}`;
  }
  // A pattern that matches no date (`0 0 31 2 *`) would be a trigger that never fires.
  return cron.nextRun(new Date(now)) === null ? "cron: matches no date, so it would never fire" : null;
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
