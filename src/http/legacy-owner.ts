/**
 * Sessions written before the owner moved into seq 1 (docs/API.md#upgrades). Such a session's
 * object holds no owner; the caller's directory, which was the record of ownership then, still
 * lists it. When the object answers 404 with the `unowned` hint, the Worker asks the caller's
 * directory once and, if it lists the session, has the object adopt the caller as its owner and
 * asks again. Only that rare answer costs the extra calls: no other request touches a directory.
 */
import type { Result } from "../contract/errors";
import type { SessionObject } from "../session";
import { directoryOf } from "./types";

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
