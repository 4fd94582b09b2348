/**
 * Waits and the step budget as a fold over the open turn (docs/API.md §6 "Step budget", §7.27,
 * §7.28): which wait the turn is blocked on, how many model calls it has made since it opened
 * or was last resumed, and the budget it opened with. Pure; `reduceSummary` calls it per event.
 *
 * A wait starts with an event carrying hidden `stateDelta.wait` (a `wait_for` dispatch, or a
 * kind that plugs in later such as `child`) or `stateDelta.budgetWait`, and ends with the
 * response to its call or with `stateDelta.budgetResume`, or when the turn closes.
 */
import type { Event } from "../contract/event";

export type { SessionWait, WaitKind } from "../contract/session";

import type { SessionWait, WaitKind } from "../contract/session";

/** The wait as the summary keeps it: the public shape plus the call it answers, if any. */
export type TurnWait = SessionWait & { callId?: string; invocationId?: string };

/** docs/API.md §2: the step budget when a session does not set one. */
export const DEFAULT_MAX_MODEL_CALLS = 1000;

/** The `waitId` of a waiting call (`wait_for`, `spawn_session`): derived from its callId. */
export function waitIdForCall(callId: string): string {
  return `wait:${callId}`;
}

/** docs/API.md §7.28: the k-th budget wait of a turn (k from 1). */
export function budgetWaitId(turnId: string, k: number): string {
  return `budget:${turnId}:${k}`;
}

/** What the open turn carries for waits and the budget (all optional: older caches lack them). */
export type TurnBudget = {
  /** Model calls (non-compaction invocations) since the turn opened or was last resumed. */
  modelCalls?: number;
  lastInvocationId?: string;
  /** The budget recorded when the turn opened: a PATCH changes the next turn's. */
  maxModelCalls?: number;
  /** Budget waits so far in this turn (the next one is k = budgetWaits + 1). */
  budgetWaits?: number;
  wait?: TurnWait | null;
};

/** Folds one event of the open turn into its wait and budget state. */
export function reduceTurnWaits<T extends TurnBudget & { turnId: string; runId: string }>(
  turn: T,
  e: Event,
  maxModelCallsPerTurn: number | undefined,
): T {
  let t = turn;
  if (t.maxModelCalls === undefined) t = { ...t, maxModelCalls: maxModelCallsPerTurn ?? DEFAULT_MAX_MODEL_CALLS };
  if (e.turnId !== t.turnId) return t;
  const a = e.actions ?? {};
  const delta = a.stateDelta;
  const request = a.modelRequest as { purpose?: string } | undefined;
  // docs/API.md §7.28: one invocation is one call; its retries and re-issues repeat its id.
  if (request && request.purpose !== "compaction" && e.invocationId && e.invocationId !== t.lastInvocationId)
    t = { ...t, modelCalls: (t.modelCalls ?? 0) + 1, lastInvocationId: e.invocationId };
  const started = delta?.wait as Partial<TurnWait> | undefined;
  if (started && typeof started.waitId === "string") {
    t = {
      ...t,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: started.waitId,
        kind: (started.kind as WaitKind | undefined) ?? "wait_for",
        ...(typeof started.reason === "string" ? { reason: started.reason } : {}),
        ...(a.toolDispatch ? { callId: a.toolDispatch.callId } : started.callId ? { callId: started.callId } : {}),
        ...(e.invocationId ? { invocationId: e.invocationId } : {}),
      },
    };
  }
  // docs/design.md#remote-calls: a remote call's recorded task starts its wait.
  const remote = delta?.remoteTask as { waitId?: unknown; callId?: unknown } | undefined;
  if (remote && typeof remote.waitId === "string" && typeof remote.callId === "string")
    t = {
      ...t,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: remote.waitId,
        kind: "remote",
        callId: remote.callId,
        ...(e.invocationId ? { invocationId: e.invocationId } : {}),
      },
    };
  // A remote task that asks for input: the wait says what is asked, until the answer is sent.
  const input = delta?.remoteInput as { waitId?: unknown; ask?: unknown } | undefined;
  if (input && t.wait?.waitId === input.waitId && typeof input.ask === "string")
    t = { ...t, wait: { ...t.wait, reason: input.ask } };
  const replied = delta?.remoteReply as { waitId?: unknown } | undefined;
  const w = t.wait;
  if (replied && w && w.waitId === replied.waitId && w.reason !== undefined) {
    const { reason: _reason, ...rest } = w;
    t = { ...t, wait: rest };
  }
  const budget = delta?.budgetWait as { waitId?: unknown; modelCalls?: unknown } | undefined;
  if (budget && typeof budget.waitId === "string")
    t = {
      ...t,
      budgetWaits: (t.budgetWaits ?? 0) + 1,
      wait: {
        runId: e.runId ?? t.runId,
        waitId: budget.waitId,
        kind: "budget",
        modelCalls: typeof budget.modelCalls === "number" ? budget.modelCalls : (t.modelCalls ?? 0),
      },
    };
  const resumed = delta?.budgetResume as { waitId?: unknown } | undefined;
  if (resumed && t.wait?.waitId === resumed.waitId) t = { ...t, wait: null, modelCalls: 0 };
  const c = e.content;
  if (c?.type === "functionResponse" && t.wait?.callId === c.callId) t = { ...t, wait: null };
  return t;
}

/** `Session.wait` (docs/API.md §7.27): the public part of the open turn's wait, or null. */
export function publicWait(turn: TurnBudget | null): SessionWait | null {
  const w = turn?.wait;
  if (!w) return null;
  return {
    runId: w.runId,
    waitId: w.waitId,
    kind: w.kind,
    ...(w.reason !== undefined ? { reason: w.reason } : {}),
    ...(w.modelCalls !== undefined ? { modelCalls: w.modelCalls } : {}),
  };
}
