import { ApiError } from "../contract";
import { directoryOf, type EdgeMiddleware } from "./types";

/** The Workers rate-limiting binding, where one is configured. */
type RateLimitBinding = { limit(options: { key: string }): Promise<{ success: boolean }> };

/** Routes that reach one session object; everything else under /v1 is the directory's or the Worker's. */
const SESSION_ROUTE = /^\/v1\/sessions\/[^/]+(\/|$)/;

/**
 * 429 past `RATE_LIMIT_PER_MINUTE` per principal (CONTRACT §1, §7.25: approximate), never
 * through one object per principal:
 * - with a `RATE_LIMITER` binding (`[[ratelimits]]`, deployed environments), the count is per
 *   Cloudflare location and touches no object, in §7.1's place (before 413 and 404);
 * - without one, a session route's count is kept by the session object it reaches anyway, in
 *   the same RPC (counters sharded by session: each object counts the principal's requests to
 *   it), and the collection routes count in the principal's directory, which they visit anyway.
 */
export function rateLimit(): EdgeMiddleware {
  return async function rateLimit(c, next) {
    const limit = Number(c.env.RATE_LIMIT_PER_MINUTE);
    if (!Number.isFinite(limit) || limit <= 0) return next();
    const principal = c.get("principal");
    const binding = (c.env as { RATE_LIMITER?: RateLimitBinding }).RATE_LIMITER;
    if (binding) {
      if (!(await binding.limit({ key: principal })).success)
        throw new ApiError("rate_limited", `over ${limit} requests per minute`);
      return next();
    }
    if (SESSION_ROUTE.test(c.req.path)) {
      c.set("ratePerMinute", limit);
      return next();
    }
    if (!(await directoryOf(c.env, principal).hit(limit)))
      throw new ApiError("rate_limited", `over ${limit} requests per minute`);
    return next();
  };
}
