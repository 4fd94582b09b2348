/**
 * The one gate of every call from the Worker (docs/API.md#authentication-and-errors): a session
 * that exists and is the caller's, else the same 404 whether it was never written or is someone
 * else's. Nothing is written either way.
 */
import { ApiError } from "../contract";
import type { EventStore } from "../log";
import type { SessionRuntime } from "../runtime";
import { type Caller, ownerHash } from "./ownership";
import { adoptedOwner } from "./tickets";

/** What an admitted call works with: the runtime, its log and the object's tables. */
export type Admitted = { runtime: SessionRuntime; store: EventStore; sql: SqlStorage };

export function admit(
  opened: { runtime: SessionRuntime; store: EventStore } | null,
  sql: SqlStorage,
  sessionId: string,
  caller: Caller,
): Admitted {
  const summary = opened?.runtime.summary;
  // A session from before the owner moved into seq 1 has none there: its principal's directory
  // vouches for it once (`adoptOwner`), then it is admitted like any other (docs/API.md#upgrades).
  const owner = summary ? (summary.owner ?? adoptedOwner(sql)) : null;
  if (summary && !owner) throw new ApiError("not_found", "session not found", { hint: "unowned" });
  if (!opened || !owner || owner !== ownerHash(sessionId, caller.principal))
    throw new ApiError("not_found", "session not found");
  return { ...opened, sql };
}
