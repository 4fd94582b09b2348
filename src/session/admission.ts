/**
 * The one gate of every call from the Worker (docs/API.md#authentication-and-errors): a session
 * that exists and is the caller's, else the same 404 whether it was never written or is someone
 * else's. Nothing is written either way.
 */
import { ApiError } from "../contract/errors";
import type { EventStore } from "../log/store";
import type { SessionRuntime } from "../runtime";
import { type Caller, ownerHash } from "./ownership";
import { adoptedOwner, adoptOwner } from "./tickets";

/** What an admitted call works with: the runtime, its log and the object's tables. */
export type Admitted = { runtime: SessionRuntime; store: EventStore; sql: SqlStorage };

type Opened = { runtime: SessionRuntime; store: EventStore };

export function admit(opened: Opened | null, sql: SqlStorage, sessionId: string, caller: Caller): Admitted {
  const summary = opened?.runtime.summary;
  // A session from before the owner moved into seq 1 has none there: its principal's directory
  // vouches for it once (`adoptOwner`), then it is admitted like any other (docs/API.md#upgrades).
  const owner = summary ? (summary.owner ?? adoptedOwner(sql)) : null;
  if (summary && !owner) throw new ApiError("not_found", "session not found", { hint: "unowned" });
  if (!opened || !owner || owner !== ownerHash(sessionId, caller.principal))
    throw new ApiError("not_found", "session not found");
  return { ...opened, sql };
}

/**
 * A session written before the owner moved into seq 1: the Worker found it in `caller`'s
 * directory, which was its record of ownership then, so `caller` becomes its owner. Only a
 * session with no owner at all is adopted (docs/API.md#upgrades).
 */
export function adoptOnce(opened: Opened | null, sql: SqlStorage, sessionId: string, caller: Caller) {
  const summary = opened?.runtime.summary;
  if (!summary || summary.owner || adoptedOwner(sql)) return { adopted: false };
  adoptOwner(sql, ownerHash(sessionId, caller.principal), caller.principal);
  return { adopted: true };
}
