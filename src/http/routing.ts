/**
 * Routing at the edge: a path's handlers and the 405 for its other methods, the session lookup on
 * `/v1/sessions/:id/*` (with the adoption of sessions from before owners were in seq 1), and the
 * one place an error becomes an answer.
 */
import type { Handler } from "hono";
import { matchedRoutes } from "hono/route";
import { METHOD_NAME_ALL } from "hono/router";
import { ApiError, type Result, toErrorBody } from "../contract/errors";
import type { SessionObject } from "../session";
import { drainBody } from "./body";
import { SESSION_ID } from "./schemas";
import { directoryOf, type EdgeApp, type EdgeContext, type EdgeEnv, type EdgeMiddleware } from "./types";

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

/**
 * The one place an error becomes an answer (hono's `onError` and `notFound`): the body from
 * the contract's builder, the status from its table. A body the request still carries is
 * drained first (docs/API.md §7.2), so the client's connection stays usable.
 */
export async function answerError(err: unknown, c: EdgeContext): Promise<Response> {
  await drainBody(c.req.raw);
  if (!(err instanceof ApiError)) console.error("highwater: internal error", err);
  const { status, body } = toErrorBody(err);
  return c.json(body, status);
}

export function answerNotFound(c: EdgeContext): Promise<Response> {
  return answerError(new ApiError("not_found", "unknown route"), c);
}

/*
 * Sessions written before the owner moved into seq 1 (docs/API.md#upgrades). Such a session's
 * object holds no owner; the caller's directory, which was the record of ownership then, still
 * lists it. When the object answers 404 with the `unowned` hint, the Worker asks the caller's
 * directory once and, if it lists the session, has the object adopt the caller as its owner and
 * asks again. Only that rare answer costs the extra calls: no other request touches a directory.
 */

type SessionStub = DurableObjectStub<SessionObject>;

/** A failed Result from an object that holds no owner. */
export function isUnowned(r: unknown): boolean {
  const error = (r as Partial<Extract<Result<unknown>, { ok: false }>> | null)?.error;
  return typeof r === "object" && r !== null && (r as { ok?: unknown }).ok === false && error?.hint === "unowned";
}

/**
 * `stub` whose RPCs retry once after adopting the caller, when the caller's directory lists the
 * session (`listed`: already known, e.g. the listing itself came from that directory).
 */
export function adoptingStub(
  env: Env,
  stub: SessionStub,
  id: string,
  principal: () => string,
  listed?: boolean,
): SessionStub {
  return new Proxy(stub, {
    get(target, prop) {
      const methods = target as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
      const value = methods[prop];
      if (typeof value !== "function") return value;
      // Called on the stub itself: a stub's method needs its stub as `this`.
      if (prop === "fetch" || prop === "adoptOwner") return (...args: unknown[]) => methods[prop]!(...args);
      return async (...args: unknown[]) => {
        const call = () => methods[prop]!(...args);
        const first = await call();
        if (!isUnowned(first)) return first;
        const who = principal();
        if (!listed && !(await directoryOf(env, who).has(id))) return first;
        await target.adoptOwner({ principal: who });
        return call();
      };
    },
  });
}
