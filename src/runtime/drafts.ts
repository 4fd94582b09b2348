/**
 * Draft builders for every event the runtime appends. Pure: ids, clock values and the plan are
 * passed in, so each is table-tested in Node with hand-written logs.
 */
import type { EventDraft } from "../contract/event";
import type { RecoveryPlan, RunState } from "../projections";
import { interruptedDraft } from "./call-drafts";
import { type Base, hidden } from "./draft-base";
import { modelAttemptDraft } from "./model-drafts";

export * from "./call-drafts";
export type { Base, Ids } from "./draft-base";
export * from "./model-drafts";

export function closeDraft(base: Base, reason: "completed" | "stopped" | "failed"): EventDraft {
  return hidden(base, { actions: { turnClose: { reason } } });
}

/**
 * A takeover (docs/API.md §7.11, §7.12), as one block: `runStarted` under the new run, the
 * `interrupted` answers, the notice (its `atSeq` is its own seq) and, for a re-issued call, the
 * lost attempt with code `restart`. Empty when the plan has nothing to record.
 */
export function recoveryDrafts(
  plan: RecoveryPlan,
  state: RunState,
  input: { turnId: string; runId: string; highWater: number; now: number },
): EventDraft[] {
  const reissued = plan.reissue ? [plan.reissue.invocationId] : [];
  if (plan.closed || (plan.rerun.length === 0 && plan.interrupted.length === 0 && reissued.length === 0)) return [];
  const base = { turnId: input.turnId, runId: input.runId };
  const drafts: EventDraft[] = [
    hidden(base, { actions: { stateDelta: { runStarted: { runId: input.runId, cause: "recovery" } } } }),
  ];
  for (const callId of plan.interrupted) {
    const call = state.calls.find((c) => c.callId === callId);
    if (call) drafts.push(interruptedDraft(call, base, "recovery"));
  }
  const atSeq = input.highWater + drafts.length + 1;
  drafts.push(
    hidden(base, {
      actions: {
        stateDelta: { recoveryNotice: { atSeq, rerun: plan.rerun, needsReview: plan.interrupted, reissued } },
      },
    }),
  );
  if (plan.reissue)
    drafts.push(
      modelAttemptDraft(
        { ...base, invocationId: plan.reissue.invocationId },
        plan.reissue.attempt,
        { code: "restart", message: "the object restarted while this call was under way; it is issued again" },
        input.now,
      ),
    );
  return drafts;
}
