/**
 * How a turn closes other than by completing (docs/API.md#sub-sessions): a stop or a failure
 * answers every open call and stops every child still at work, in the close's own block. Pure,
 * like the other draft builders.
 */
import type { EventDraft } from "../contract/event";
import { awaitsChild, type RunState } from "../projections/run-state";
import { argsDigestOf, type Base, closeDraft, interruptedDraft, rejectedDraft } from "./drafts";

const hidden = (base: Base, rest: Pick<EventDraft, "actions" | "content">): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  ...base,
  ...rest,
});

/**
 * A failure that ends the turn (model_failed, a poison slice, a log that fails verification), as
 * one block: the error the user reads, then what every close does (`closingDrafts`).
 */
export function failureDrafts(state: RunState, base: Base, code: string, message: string): EventDraft[] {
  return [hidden(base, { content: { type: "error", code, message } }), ...closingDrafts(state, base, "failed")];
}

/**
 * Stop (docs/API.md#sub-sessions), as one block: a reject for each pending approval, `rejected` for calls not
 * dispatched, `interrupted` for dispatched calls without an outcome, then `turnClose: stopped`.
 */
export function stopDrafts(state: RunState, base: Base): EventDraft[] {
  return closingDrafts(state, base, "stopped");
}

/**
 * What every close other than completion appends (docs/API.md#sub-sessions): an answer for each
 * open call (a pending approval rejected; `rejected` if not dispatched, else `interrupted`), the
 * children still at work recorded as `stopChildren` (the alarm stops each until acknowledged),
 * then the `turnClose`.
 */
export function closingDrafts(state: RunState, base: Base, why: "stopped" | "failed"): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (const call of state.calls) {
    if (call.answered) continue;
    const ids = { ...base, invocationId: call.invocationId };
    if (call.approval && call.approval.decision === null) {
      drafts.push(
        hidden(base, {
          actions: {
            permissionDecision: {
              requestId: call.approval.requestId,
              decision: "reject",
              reason: why,
              argsDigest: argsDigestOf(call.args),
            },
          },
        }),
      );
      drafts.push(rejectedDraft(call, ids, { reason: why }));
    } else if (!call.dispatch) drafts.push(rejectedDraft(call, ids, { reason: why }));
    else drafts.push(interruptedDraft(call, base, why));
  }
  const children = state.calls.filter(awaitsChild).map((c) => c.callId);
  if (children.length > 0) drafts.push(stopChildrenDraft(base, children));
  drafts.push(closeDraft(base, why));
  return drafts;
}

/** A stop's or failure's addition (docs/API.md#sub-sessions): which children to stop, in the close's own block. */
export function stopChildrenDraft(base: Base, callIds: string[]): EventDraft {
  return hidden(base, { actions: { stateDelta: { stopChildren: { callIds } } } });
}
