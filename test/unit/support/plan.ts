/** One way to ask the planner about a hand-written log, as the driver asks it (docs/design.md#run-loop). */
import type { Event } from "../../../src/log";
import { type CallState, projectRunState } from "../../../src/projections";
import { type PlanPolicy, planNextStep, type SliceHead, type Step } from "../../../src/runtime/plan";
import { DEFAULT_POLICY } from "../../../src/runtime/retry";
import { deepFreeze, type LogBuilder, newLog } from "./fixtures";

/** `delete_file` needs approval; nothing else does. */
export const needsApproval = (call: CallState) => call.name === "delete_file";
export const POLICY: PlanPolicy = { ...DEFAULT_POLICY, needsApproval };
export const NOW = 1_000_000;
export const HEAD: SliceHead = { now: NOW, sliceElapsedMs: 0, failedSlices: 0, inflight: null, lengthStreak: 0 };

/** The open turn's suffix from its last model request, as the driver reads it. */
export function suffix(events: Event[]): Event[] {
  const i = events.findLastIndex((e) => e.actions?.modelRequest);
  return i >= 0 ? events.slice(i) : events;
}

/**
 * The step the planner takes for a log, written with `newLog()` (a callback) or given as events;
 * the events are frozen, so a planner that writes to its input throws.
 */
export function plan(
  log: Event[] | ((ev: LogBuilder) => void),
  head: Partial<SliceHead> = {},
  policy: Partial<PlanPolicy> = {},
): Step {
  let all: Event[];
  if (typeof log === "function") {
    const ev = newLog();
    log(ev);
    all = ev.events;
  } else all = log;
  const events = deepFreeze(suffix(all));
  return planNextStep(events, projectRunState(events), { ...HEAD, ...head }, { ...POLICY, ...policy });
}
