/**
 * `RATE_LIMIT_PER_MINUTE` per principal (docs/API.md#authentication-and-errors): approximate,
 * and never through one object per principal. With the `RATE_LIMITER` binding the count is the
 * platform's, per Cloudflare location; without it, every isolate counts the requests it sees in
 * memory (the Worker's isolates count HTTP requests, a session object's isolate counts its
 * sockets' frames). A principal spread over k isolates may therefore reach k times the limit.
 */

/** The Workers rate-limiting binding (`[[ratelimits]]`), where one is configured. */
export type RateLimitBinding = { limit(options: { key: string }): Promise<{ success: boolean }> };

const WINDOW_SECONDS = 60;
/** Past this many keys, windows with nothing in the last minute are dropped. */
const PRUNE_AT = 4096;

type Window = { seconds: Float64Array; counts: Uint32Array };

/**
 * Requests per key in the last 60 seconds, in one-second buckets: a request counts for 60 to 61
 * seconds, whatever minute boundaries it straddles. A refused request is not counted, so that a
 * client that backs off is admitted again at the limit's pace.
 */
export class SlidingMinute {
  readonly #windows = new Map<string, Window>();

  /** Counts one request for `key` unless `limit` were counted in the last minute; true when counted. */
  take(key: string, limit: number, now = Date.now()): boolean {
    const second = Math.floor(now / 1000);
    let w = this.#windows.get(key);
    if (!w) {
      if (this.#windows.size >= PRUNE_AT) this.#prune(second);
      w = {
        seconds: new Float64Array(WINDOW_SECONDS).fill(Number.NEGATIVE_INFINITY),
        counts: new Uint32Array(WINDOW_SECONDS),
      };
      this.#windows.set(key, w);
    }
    if (usedIn(w, second) >= limit) return false;
    const slot = second % WINDOW_SECONDS;
    if (w.seconds[slot] !== second) {
      w.seconds[slot] = second;
      w.counts[slot] = 0;
    }
    w.counts[slot] = w.counts[slot]! + 1;
    return true;
  }

  #prune(second: number) {
    for (const [key, w] of this.#windows) if (usedIn(w, second) === 0) this.#windows.delete(key);
  }
}

function usedIn(w: Window, second: number): number {
  let used = 0;
  for (let i = 0; i < WINDOW_SECONDS; i++) if (w.seconds[i]! > second - WINDOW_SECONDS) used += w.counts[i]!;
  return used;
}

/** This isolate's counts, shared by the Worker's middleware and the session objects it hosts. */
const isolateWindow = new SlidingMinute();

/** The limit in force, or null when `RATE_LIMIT_PER_MINUTE` is off (unset, not a positive number). */
export function ratePerMinute(env: { RATE_LIMIT_PER_MINUTE?: string }): number | null {
  const limit = Number(env.RATE_LIMIT_PER_MINUTE);
  return Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : null;
}

/** Counts one request of `principal`: the binding where there is one, else this isolate's window. */
export async function admitRate(env: object, principal: string, limit: number): Promise<boolean> {
  const binding = (env as { RATE_LIMITER?: RateLimitBinding }).RATE_LIMITER;
  if (binding) return (await binding.limit({ key: principal })).success;
  return isolateWindow.take(principal, limit);
}
