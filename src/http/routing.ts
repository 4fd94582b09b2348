import type { Handler } from "hono";
import { matchedRoutes } from "hono/route";
import { METHOD_NAME_ALL } from "hono/router";
import { ApiError } from "../contract/errors";
import type { SessionObject } from "../session";
import { answerError } from "./errors";
import { adoptingStub } from "./legacy-owner";
import { SESSION_ID } from "./schemas";
import type { EdgeApp, EdgeEnv, EdgeMiddleware } from "./types";

/**
 * The stub for a session id from a URL, or null for an id this namespace did not mint
 * (`idFromString` throws on those: malformed, another namespace's, a sibling with a changed
 * digit). A minted id that was never written still gets a stub; its object answers 404 and
 * writes nothing (docs/API.md §7.26).
 */
export function sessionStub(env: Env, id: string): DurableObjectStub<SessionObject> | null {
  if (!SESSION_ID.test(id)) return null;
  try {
    return env.SESSIONS.get(env.SESSIONS.idFromString(id));
  } catch {
    return null;
  }
}

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
 * Mounted on `/v1/sessions/:id/*`: the stub of the session the path names, or 404 for an id
 * the namespace did not mint. Ownership is the object's to check, in the same RPC as the
 * request itself (docs/API.md §7.26), so no per-principal object is on the path. It steps aside
 * when no route handles the request, so that 404 unknown route and 405 come first (§7.1).
 */
export function sessionLookup(): EdgeMiddleware {
  return async function sessionLookup(c, next) {
    if (!hasEndpoint(c) || c.get("session")) return next();
    const id = c.req.param("id") ?? "";
    const stub = sessionStub(c.env, id);
    if (!stub) throw new ApiError("not_found", "session not found");
    c.set(
      "session",
      adoptingStub(c.env, stub, id, () => c.get("principal")),
    );
    await next();
    // A route that refused the request at the edge (a bad query, body or path) never asked the
    // object; someone else's session must still be 404 first (docs/API.md §7.1), so ask it now.
    if (!c.get("askedObject") && c.res.status >= 400 && c.res.status !== 404) {
      const r = await stub.getSession({ principal: c.get("principal") });
      if (!r.ok && r.error.code === "not_found")
        c.res = await answerError(new ApiError("not_found", r.error.message), c);
    }
  };
}
