/**
 * Waits (docs/API.md §6), the pure part: which tools wait, the planner's view of the open turn's
 * wait and budget, and the drafts that start and release a wait. Table-tested in Node.
 */
import type { EventDraft } from "../log";
import { budgetWaitId, type CallState, type OpenTurn, type TurnWait, waitIdForCall } from "../projections";
import { type Base, dispatchDraft, responseDraft } from "./drafts";

/** Tools whose dispatched call waits for something outside the loop, by wait kind (`spawn_session` adds `child`). */
export const WAIT_TOOLS: Readonly<Record<string, "wait_for" | "child">> = { wait_for: "wait_for" };

/** The source of a resume's text when it enters as user input (docs/API.md §7.28). */
export const RESUME_SOURCE = "resume";

/** What the planner knows of the open turn's wait and budget (from the summary). */
export type WaitHead = {
  wait: { waitId: string; kind: TurnWait["kind"] } | null;
  budget: { modelCalls: number; max: number; nextWaitId: string };
};

export function waitHeadOf(turn: OpenTurn): WaitHead {
  return {
    wait: turn.wait ? { waitId: turn.wait.waitId, kind: turn.wait.kind } : null,
    budget: {
      modelCalls: turn.modelCalls ?? 0,
      max: turn.maxModelCalls ?? Number.POSITIVE_INFINITY,
      nextWaitId: budgetWaitId(turn.turnId, (turn.budgetWaits ?? 0) + 1),
    },
  };
}

/** T1 of a wait tool: the dispatch, carrying the wait it starts (`stateDelta.wait`). No T2 until a resume. */
export function beginWaitDraft(
  call: CallState,
  base: Base,
  idempotencyKey: string,
  kind: "wait_for" | "child",
  reason?: string,
): EventDraft {
  const draft = dispatchDraft(call, base, "idempotent", idempotencyKey);
  draft.actions = {
    ...draft.actions,
    stateDelta: {
      wait: { waitId: waitIdForCall(call.callId), kind, ...(reason !== undefined ? { reason } : {}) },
    },
  };
  return draft;
}

/** docs/API.md §7.28: the turn reached its budget and would call the model again. */
export function budgetWaitDraft(base: Base, waitId: string, modelCalls: number): EventDraft {
  return {
    author: "runtime",
    modelVisibility: "hidden",
    ...base,
    actions: { stateDelta: { budgetWait: { waitId, modelCalls } } },
  };
}

/**
 * The events a resume appends: a `wait_for` gets its response `{ text }`; a budget wait gets
 * `budgetResume` and, when the text is non-empty, a user event with source `resume`.
 */
export function resumeDrafts(wait: TurnWait, base: Base, text: string): EventDraft[] {
  if (wait.kind === "budget") {
    const drafts: EventDraft[] = [
      {
        author: "user",
        modelVisibility: "hidden",
        ...base,
        actions: { stateDelta: { budgetResume: { waitId: wait.waitId } } },
      },
    ];
    if (text !== "")
      drafts.push({
        author: "user",
        source: RESUME_SOURCE,
        modelVisibility: "visible",
        ...base,
        content: { type: "text", text },
      });
    return drafts;
  }
  const ids = { ...base, ...(wait.invocationId ? { invocationId: wait.invocationId } : {}) };
  return [
    responseDraft(
      { callId: wait.callId ?? "", name: "wait_for" },
      ids,
      "ok",
      { text },
      {
        stateDelta: { resumed: { waitId: wait.waitId } },
      },
    ),
  ];
}
