/**
 * The schedule's planner (docs/design.md §2, decide then do): from the triggers that are due, the runs
 * they left unfinished and whether a turn is open, what each firing does. Pure; the driver
 * (`triggers.ts`) commits the drafts it returns.
 */
import type { EventDraft } from "../../log";
import type { RunRow, TriggerFired, TriggerRow } from "./facts";

export type FiringView = {
  now: number;
  /** The open turn, if any: a firing meanwhile is queued until it closes. */
  openTurnId: string | null;
  /** The trigger's newest run (its unfinished one, or its last skip), if any. */
  lastRunOf: (name: string) => RunRow | null;
  /** Whether the trigger has a run that is running or queued (docs/API.md §7.32). */
  unfinished: (name: string) => boolean;
  newId: () => string;
};

export type Firing = TriggerFired & { turnId: string | null; text: string };

/**
 * One firing per due trigger, in due order, however many times it was due since it last fired
 * (missed firings collapse into one). A trigger whose run is unfinished is skipped, reusing its
 * last run's id when that was a skip too (consecutive skips coalesce); with a turn open the run
 * is queued; else it starts, and the triggers due after it queue behind it.
 */
export function planFirings(triggers: TriggerRow[], view: FiringView): Firing[] {
  const due = triggers
    .filter((t): t is TriggerRow & { nextAt: number } => t.nextAt !== null && t.nextAt <= view.now)
    .sort((a, b) => a.nextAt - b.nextAt || (a.name < b.name ? -1 : 1));
  let open = view.openTurnId;
  const firings: Firing[] = [];
  for (const t of due) {
    const dueAt = new Date(t.nextAt).toISOString();
    const base = { name: t.name, dueAt, text: t.text };
    if (view.unfinished(t.name)) {
      const last = view.lastRunOf(t.name);
      const runId = last?.state === "skipped" ? last.runId : view.newId();
      firings.push({ ...base, runId, disposition: "skip", turnId: null });
    } else if (open) {
      firings.push({ ...base, runId: view.newId(), disposition: "queue", turnId: null });
    } else {
      open = view.newId();
      firings.push({ ...base, runId: view.newId(), disposition: "start", turnId: open });
    }
  }
  return firings;
}

/** The events of one firing: the hidden `triggerFired`, and for a start the run's input. */
export function firingDrafts(f: Firing): EventDraft[] {
  const fired: Record<string, unknown> = { name: f.name, runId: f.runId, dueAt: f.dueAt, disposition: f.disposition };
  if (f.disposition === "queue") fired.text = f.text;
  // Only a start names its run and turn on the event: a queued or skipped firing happens inside
  // another turn, whose run state must not take its ids.
  const marker: EventDraft = {
    author: "runtime",
    modelVisibility: "hidden",
    ...(f.disposition === "start" && f.turnId ? { turnId: f.turnId, runId: f.runId } : {}),
    actions: { stateDelta: { triggerFired: fired } },
  };
  if (f.disposition !== "start" || !f.turnId) return [marker];
  return [marker, runInputDraft({ runId: f.runId, turnId: f.turnId, trigger: f.name, text: f.text })];
}

/** The user input a scheduled run opens its turn with (source `trigger:<name>`). */
export function runInputDraft(r: { runId: string; turnId: string; trigger: string; text: string }): EventDraft {
  return {
    author: "user",
    source: `trigger:${r.trigger}`,
    modelVisibility: "visible",
    turnId: r.turnId,
    runId: r.runId,
    content: { type: "text", text: r.text },
  };
}
