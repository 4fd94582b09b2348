/**
 * The channel outbox's policy (docs/API.md#channels), pure: when a failed post is tried again,
 * when a progress edit may go, and in which order rows go out.
 */

/** Progress edits of one message go at most this often. */
export const PROGRESS_EVERY_MS = 5_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 5 * 60_000;
/** A post that failed this often is given up (about a day at the cap). */
export const MAX_TRIES = 300;

/** The next try after `tries` failures: the platform's `Retry-After` if it gave one, else doubling backoff. */
export function nextTryAt(tries: number, retryAfterMs: number | null, now: number): number {
  if (retryAfterMs !== null) return now + Math.min(Math.max(retryAfterMs, 0), 60 * 60_000);
  return now + Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, tries - 1), MAX_RETRY_MS);
}

export type OutboxRow = {
  key: string;
  n: number;
  thread: string;
  nextAt: number;
  /** A progress edit waiting for its 5 s: it holds nothing back (it replaces its own message). */
  paced?: boolean;
};

/**
 * The rows to send now, in order: a thread's rows go one after another, so a row waiting for its
 * retry holds back the rows behind it in the same thread (a thread never reads out of order);
 * a paced progress edit does not.
 */
export function dueInOrder(rows: readonly OutboxRow[], now: number): OutboxRow[] {
  const held = new Set<string>();
  const out: OutboxRow[] = [];
  for (const r of [...rows].sort((a, b) => a.n - b.n)) {
    if (held.has(r.thread)) continue;
    if (r.nextAt > now) {
      if (!r.paced) held.add(r.thread);
      continue;
    }
    out.push(r);
  }
  return out;
}

/** When a progress edit may go: at once for the first, else 5 s after the last one sent. */
export function progressDueAt(lastSentAt: number | null, now: number): number {
  return lastSentAt === null ? now : Math.max(now, lastSentAt + PROGRESS_EVERY_MS);
}
