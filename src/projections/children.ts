/**
 * Sub-sessions (docs/API.md §6 `spawn_session`, §7.31) as the summary sees them: which spawns of the
 * open turn wait for their child, the child's outbox to its parent, and the parent's pending
 * stops of its children. A fold over events, like the rest of the summary. Pure.
 */

import type { Event } from "../contract/event";
import type { CloseReason } from "../contract/session";

/** The tool whose response comes from another session's close, not from its own run. */
export const SPAWN_TOOL = "spawn_session";
/** docs/API.md §7.31: a root session is depth 0; its children 1; nothing deeper than 5. */
export const MAX_NESTING = 5;

/** docs/API.md#sub-sessions: at most this many children that have not reported, per session. */
export const MAX_OPEN_CHILDREN = 32;

/** Who spawned a child session, recorded in its seq 1 (`stateDelta.session.spawnedBy`). */
export type SpawnedBy = { sessionId: string; callId: string; depth: number };

export type ChildrenState = {
  spawnedBy: SpawnedBy | null;
  /** Dispatched spawns of the open turn with no response yet: the run waits for them. */
  awaiting: { callId: string; runId: string }[];
  /** A child's outbox: its goal turn closed and the parent has not acknowledged yet. */
  report: { turnId: string; status: CloseReason } | null;
  /** The goal turn's report was acknowledged (`stateDelta.reportAcked`): it is never sent again. */
  reported: boolean;
  /** The turn the goal opened (the child's first turn): only its close is reported. */
  goalTurnId: string | null;
  goalTurnSeq: number | null;
  /**
   * The seq of the goal turn's last visible, non-empty model text (its result), so that each
   * delivery reads one event, not the turn; absent in a summary folded before it was kept.
   */
  resultSeq?: number | null;
  /** A parent's stops of its children (`stateDelta.stopChildren`) not yet acknowledged. */
  stops: string[];
};

export function initialChildren(spawnedBy: SpawnedBy | null): ChildrenState {
  return {
    spawnedBy,
    awaiting: [],
    report: null,
    reported: false,
    goalTurnId: null,
    goalTurnSeq: null,
    resultSeq: null,
    stops: [],
  };
}

/** `spawnedBy` from a created session's delta, if well formed. */
export function parseSpawnedBy(v: unknown): SpawnedBy | null {
  const o = v as Partial<SpawnedBy> | null | undefined;
  if (!o || typeof o.sessionId !== "string" || typeof o.callId !== "string" || typeof o.depth !== "number") return null;
  return { sessionId: o.sessionId, callId: o.callId, depth: o.depth };
}

/** Folds one event into the children state. */
export function reduceChildren(prev: ChildrenState | undefined, e: Event): ChildrenState {
  let next: ChildrenState = prev ?? initialChildren(null);
  // Most events change nothing here: no closure and no object is made for them.
  const a = e.actions;
  const delta = a?.stateDelta;
  if (a?.toolDispatch?.tool === SPAWN_TOOL)
    next = { ...next, awaiting: [...next.awaiting, { callId: a.toolDispatch.callId, runId: e.runId ?? "" }] };
  const c = e.content;
  if (c?.type === "functionResponse" && next.awaiting.some((w) => w.callId === c.callId))
    next = { ...next, awaiting: next.awaiting.filter((w) => w.callId !== c.callId) };
  if (next.spawnedBy && next.goalTurnId === null && e.author === "user" && c?.type === "text" && e.turnId)
    next = { ...next, goalTurnId: e.turnId, goalTurnSeq: e.seq };
  if (next.goalTurnId !== null && e.turnId === next.goalTurnId && !next.report && !next.reported && isResultText(e))
    next = { ...next, resultSeq: e.seq };
  if (a?.turnClose) {
    next = { ...next, awaiting: [] };
    if (next.spawnedBy && !next.reported && !next.report && e.turnId && e.turnId === next.goalTurnId)
      next = { ...next, report: { turnId: e.turnId, status: a.turnClose.reason } };
  }
  if (delta?.reportAcked) next = { ...next, report: null, reported: true };
  const stop = delta?.stopChildren as { callIds?: unknown } | undefined;
  if (stop && Array.isArray(stop.callIds))
    next = {
      ...next,
      stops: [...new Set([...next.stops, ...stop.callIds.filter((c): c is string => typeof c === "string")])],
    };
  const acked = delta?.childStopAcked as { callIds?: unknown } | undefined;
  if (acked && Array.isArray(acked.callIds)) {
    const done = new Set(acked.callIds);
    next = { ...next, stops: next.stops.filter((c) => !done.has(c)) };
  }
  return next;
}

/** docs/API.md §7.27 `Session.wait` for the child case: the first spawn the run waits for. */
export function childWait(
  s: ChildrenState | undefined,
): { runId: string; waitId: string; kind: "child"; callId: string } | null {
  const first = s?.awaiting[0];
  return first ? { runId: first.runId, waitId: `child:${first.callId}`, kind: "child", callId: first.callId } : null;
}

/**
 * The children that have not reported, other than `exceptCallId`'s: the open turn's spawns still
 * waiting and the children a stop has not reached yet (a stopped child is still at work until then).
 */
export function liveChildren(s: ChildrenState | undefined, exceptCallId?: string): number {
  if (!s) return 0;
  const ids = new Set([...s.awaiting.map((w) => w.callId), ...s.stops]);
  if (exceptCallId !== undefined) ids.delete(exceptCallId);
  return ids.size;
}

/** Whether the session has outbox work for its alarm: a report to its parent or stops of its children. */
export function hasChildrenWork(s: ChildrenState | undefined): boolean {
  return !!s && (s.report !== null || s.stops.length > 0);
}

/** Whether `e` is a visible, non-empty model text: what a child's result is made of. */
function isResultText(e: Event): boolean {
  return e.author === "model" && e.modelVisibility === "visible" && e.content?.type === "text" && !!e.content.text;
}

/** The child's result: the last visible, non-empty model text of its goal turn, or null (docs/API.md §7.31). */
export function childResult(turnEvents: Event[]): string | null {
  let last: string | null = null;
  for (const e of turnEvents) if (isResultText(e) && e.content?.type === "text") last = e.content.text;
  return last;
}
