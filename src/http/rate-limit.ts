import { ApiError } from "../contract";
import { directoryOf, type EdgeMiddleware } from "./types";

/** The Workers rate-limiting binding, where one is configured. */
type RateLimitBinding = { limit(options: { key: string }): Promise<{ success: boolean }> };

/**
 * 429 past `RATE_LIMIT_PER_MINUTE` per principal (CONTRACT §1, §7.25: approximate). With a
 * `RATE_LIMITER` binding the count is per Cloudflare location and touches no object; without
 * one it is kept in the principal's directory object, which the request visits anyway.
 */
export function rateLimit(): EdgeMiddleware {
  return async function rateLimit(c, next) {
    const limit = Number(c.env.RATE_LIMIT_PER_MINUTE);
    if (!Number.isFinite(limit) || limit <= 0) return next();
    const principal = c.get("principal");
    const binding = (c.env as { RATE_LIMITER?: RateLimitBinding }).RATE_LIMITER;
    const allowed = binding
      ? (await binding.limit({ key: principal })).success
      : await directoryOf(c.env, principal).hit(limit);
    if (!allowed) throw new ApiError("rate_limited", `over ${limit} requests per minute`);
    return next();
  };
}
