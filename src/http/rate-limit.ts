import { ApiError } from "../contract";
import { admitRate, ratePerMinute } from "../session/rate";
import type { EdgeMiddleware } from "./types";

/**
 * 429 past `RATE_LIMIT_PER_MINUTE` per principal, in its place in the check order (after 403,
 * before 413 and 404: docs/API.md#authentication-and-errors). Every authenticated request
 * counts, whatever it is answered later: a 400 or 404, an edge-cache hit, a WebSocket upgrade.
 * The count is the rate-limiting binding's or this isolate's (`session/rate.ts`), never one
 * object's, so no object is on every request's path.
 */
export function rateLimit(): EdgeMiddleware {
  return async function rateLimit(c, next) {
    const limit = ratePerMinute(c.env);
    if (limit === null) return next();
    if (!(await admitRate(c.env, c.get("principal"), limit)))
      throw new ApiError("rate_limited", `over ${limit} requests per minute`);
    c.set("ratePerMinute", limit);
    return next();
  };
}
