/**
 * The summary cache (docs/design.md#where-things-live): the session's summary folded from each
 * committed event and written beside the log in the same transaction, and whether what a
 * socket's `session` frame shows changed.
 */

import { canonical } from "../contract/canonical";
import type { Event } from "../contract/event";
import type { Writes } from "../log/store";
import { reduceSummaryWith, type Session, type SessionSummary } from "../projections/summary";
import type { SqlLike } from "../storage/sql";
import type { RuntimeFeature } from "./feature";
import { applyIdempotencyEvents, touchesIdempotency } from "./idempotency";
import { summaryWriteDue, writeSummary } from "./state";

/** Folds committed events into the summary (pure: `writeSummary` writes the cache when it is due). */
export function foldSummary(
  current: SessionSummary | null,
  events: Event[],
  features: readonly RuntimeFeature[] = [],
): SessionSummary | null {
  let next = current;
  for (const e of events) next = reduceSummaryWith(next, e, features);
  return next;
}

/**
 * The cache writes a commit of `events` needs in its transaction (the summary row when due, each
 * feature's tables, the idempotency table, `also`), or null when none is: the commit is then one
 * INSERT (docs/design.md#3-storage).
 */
export function cacheWrites(
  sql: SqlLike,
  features: readonly RuntimeFeature[],
  c: { previous: SessionSummary | null; next: SessionSummary | null; events: Event[]; also?: Writes },
): Writes | null {
  const { previous, next, also } = c;
  const due =
    !!also ||
    (next !== null && summaryWriteDue(next, previous)) ||
    touchesIdempotency(c.events) ||
    features.some((f) => f.apply && (f.touches?.(c.events) ?? true));
  if (!due) return null;
  return (committed) => {
    if (next) writeSummary(sql, next, previous);
    for (const feature of features) feature.apply?.(sql, committed);
    applyIdempotencyEvents(sql, committed);
    also?.(committed);
  };
}

/** Whether a commit changed what the `session` frame shows (so sockets are sent one). */
export function sessionChanged(before: Session | null, after: Session | null): boolean {
  return (
    !before ||
    !after ||
    before.status !== after.status ||
    before.openTurn !== after.openTurn ||
    canonical(before.pendingApprovals) !== canonical(after.pendingApprovals) ||
    canonical(before.pendingInputs) !== canonical(after.pendingInputs) ||
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
    a.pendingInputs === b.pendingInputs &&
    a.recoveryNotice === b.recoveryNotice &&
    a.lastClose === b.lastClose &&
    a.children === b.children
  );
}
