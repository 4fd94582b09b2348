/**
 * The summary cache (docs/design.md#where-things-live): the session's summary folded from each
 * committed event and written beside the log in the same transaction, and whether what a
 * socket's `session` frame shows changed.
 */
import type { Event } from "../log";
import { canonical } from "../log";
import { reduceSummary, type Session, type SessionSummary } from "../projections";

/** Folds committed events into the summary (pure: `writeSummary` writes the cache when it is due). */
export function foldSummary(current: SessionSummary | null, events: Event[]): SessionSummary | null {
  let next = current;
  for (const e of events) next = reduceSummary(next, e);
  return next;
}

/** Whether a commit changed what the `session` frame shows (so sockets are sent one). */
export function sessionChanged(before: Session | null, after: Session | null): boolean {
  return (
    !before ||
    !after ||
    before.status !== after.status ||
    before.openTurn !== after.openTurn ||
    canonical(before.pendingApprovals) !== canonical(after.pendingApprovals) ||
    canonical(before.recoveryNotice) !== canonical(after.recoveryNotice) ||
    canonical(before.wait) !== canonical(after.wait)
  );
}

/**
 * True when nothing the sockets are told about on a commit (status, open turn, approvals,
 * recovery notice, wait) can differ: every part they are derived from is the same object.
 */
export function sameOutside(a: SessionSummary, b: SessionSummary): boolean {
  return (
    a.openTurn === b.openTurn &&
    a.pendingApprovals === b.pendingApprovals &&
    a.recoveryNotice === b.recoveryNotice &&
    a.lastClose === b.lastClose &&
    a.children === b.children
  );
}
