import { cors } from "hono/cors";
import { ApiError } from "../contract";
import type { EdgeContext, EdgeMiddleware } from "./types";

const parsed = new Map<string, ReadonlySet<string>>();

/** `ALLOWED_ORIGINS` as a set, parsed once per distinct value. */
function allowedOrigins(raw: string | undefined): ReadonlySet<string> {
  const key = raw ?? "";
  let set = parsed.get(key);
  if (!set) {
    set = new Set(
      key
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
    parsed.set(key, set);
  }
  return set;
}

/** The Worker's own origin or one in `ALLOWED_ORIGINS` (docs/API.md §1). */
export function isAllowedOrigin(c: EdgeContext, origin: string): boolean {
  return origin === new URL(c.req.url).origin || allowedOrigins(c.env.ALLOWED_ORIGINS).has(origin);
}

/**
 * CORS via `hono/cors` (docs/API.md §2, §7.3): it puts its headers on `c.res` before the routes
 * run, so every answer to an allowed origin carries them, errors and 304s included. A
 * preflight from any other origin is refused with 403.
 */
export function corsEdge(): EdgeMiddleware {
  const handle = cors({
    origin: (origin, c) => (origin && isAllowedOrigin(c as EdgeContext, origin) ? origin : null),
    allowMethods: ["GET", "POST", "PATCH", "PUT", "DELETE"],
    allowHeaders: ["authorization", "content-type", "if-none-match"],
    exposeHeaders: ["ETag"],
    maxAge: 600,
  });
  return async function corsEdge(c, next) {
    const origin = c.req.header("origin");
    if (c.req.method === "OPTIONS" && !(origin && isAllowedOrigin(c, origin)))
      throw new ApiError("forbidden", "origin not allowed");
    return handle(c, next);
  };
}

/** 403 for an Origin that is neither the Worker's own nor allowed; a ticket needs an allowed one. */
export function originGuard(): EdgeMiddleware {
  return async function originGuard(c, next) {
    const origin = c.req.header("origin");
    if (origin !== undefined && !isAllowedOrigin(c, origin)) throw new ApiError("forbidden", "origin not allowed");
    if (c.get("viaTicket") && origin === undefined) throw new ApiError("forbidden", "a ticket needs an allowed Origin");
    return next();
  };
}
