import { sha256Hex } from "../log";

/**
 * Who is calling a session object, as the Worker established it: the principal (sha256 of
 * the bearer token) and, when `RATE_LIMIT_PER_MINUTE` is on without a rate-limiting binding,
 * the limit the object enforces for that principal (CONTRACT §7.25).
 */
export type Caller = { principal: string; ratePerMinute?: number };

/** CONTRACT §7.26: the owner as recorded in seq 1, bound to the session id so it says nothing elsewhere. */
export function ownerHash(sessionId: string, principal: string): string {
  return sha256Hex(`owner:${sessionId}:${principal}`);
}

/**
 * Requests per principal per minute, counted in memory by the object the requests reach
 * (CONTRACT §7.25: approximate): counters sharded by session, so no object is on every
 * request's path. An evicted object forgets its counts, which only ever admits more.
 */
export class RateWindow {
  readonly #counts = new Map<string, { minute: number; count: number }>();

  /** Counts one request; true while at or under `limit` in the current minute. */
  hit(principal: string, limit: number, now = Date.now()): boolean {
    const minute = Math.floor(now / 60_000);
    const entry = this.#counts.get(principal);
    const count = entry && entry.minute === minute ? entry.count + 1 : 1;
    this.#counts.set(principal, { minute, count });
    if (this.#counts.size > 1024) for (const [k, v] of this.#counts) if (v.minute < minute) this.#counts.delete(k);
    return count <= limit;
  }
}
