import type { Handler } from "hono";
import { matchedRoutes } from "hono/route";
import { METHOD_NAME_ALL } from "hono/router";
import { ApiError } from "../contract";
import { SESSION_ID } from "./schemas";
import { directoryOf, type EdgeApp, type EdgeEnv, type EdgeMiddleware } from "./types";

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * One path with its handlers per method; any other method on it is 405, answered by a
 * catch-all registered right after them (the app's own routes say what exists, no second table).
 */
export function resource(app: EdgeApp, path: string, handlers: Partial<Record<Method, Handler<EdgeEnv>>>): void {
  const methods = Object.keys(handlers) as Method[];
  for (const method of methods) app.on(method, path, handlers[method]!);
  const allow = methods.join(", ");
  app.all(path, function methodNotAllowed(c) {
    c.header("Allow", allow);
    throw new ApiError("method_not_allowed", `${c.req.method} not allowed here; use ${allow}`);
  });
}

/** Whether a route (not middleware, not the 405 catch-all) handles this method and path. */
function hasEndpoint(c: Parameters<EdgeMiddleware>[0]): boolean {
  return matchedRoutes(c).some((r) => r.method !== METHOD_NAME_ALL);
}

/**
 * Mounted on `/v1/sessions/:id/*`: the caller's session, or 404 for an unknown, malformed or
 * someone else's id, decided from the principal's directory so that no session object is
 * touched (and thereby created) for an id the caller does not own. It steps aside when no
 * route handles the request, so that 404 unknown route and 405 come first (CONTRACT §7.1).
 */
export function sessionLookup(): EdgeMiddleware {
  return async function sessionLookup(c, next) {
    if (!hasEndpoint(c) || c.get("session")) return next();
    const id = c.req.param("id") ?? "";
    if (!SESSION_ID.test(id) || !(await directoryOf(c.env, c.get("principal")).has(id)))
      throw new ApiError("not_found", "session not found");
    c.set("session", c.env.SESSIONS.get(c.env.SESSIONS.idFromString(id)));
    return next();
  };
}
