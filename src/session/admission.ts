/**
 * The one gate of every call from the Worker (docs/API.md#authentication-and-errors): a session
 * that exists and is the caller's, else the same 404 whether it was never written or is someone
 * else's. Nothing is written either way. Also the owner it checks: its hash, and the object's own
 * record of its owner's principal.
 */
import { ApiError } from "../contract/errors";
import { sha256Hex } from "../log/hash";
import type { EventStore } from "../log/store";
import type { SessionRuntime } from "../runtime";

/** Who is calling a session object, as the Worker established it: the principal (sha256 of the bearer token). */
export type Caller = { principal: string };

/** docs/API.md §7.26: the owner as recorded in seq 1, bound to the session id so it says nothing elsewhere. */
export function ownerHash(sessionId: string, principal: string): string {
  return sha256Hex(`owner:${sessionId}:${principal}`);
}

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

/**
 * The principal that owns this session, kept in the object's own storage (never in the log or
 * an export, where only its owner hash appears) so that the children it spawns are its too.
 */
export function rememberPrincipal(sql: SqlStorage, principal: string) {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('owner_principal', ?)", principal);
}

/**
 * The owner hash of a session written before the owner moved into seq 1, once its principal's
 * directory vouched for it (docs/API.md#upgrades). A cache of the directory: never in the log.
 */
export function adoptedOwner(sql: SqlStorage): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'adopted_owner'").toArray()[0];
  return row?.value ?? null;
}

export function adoptOwner(sql: SqlStorage, owner: string, principal: string) {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('adopted_owner', ?)", owner);
  rememberPrincipal(sql, principal);
}

export function ownerPrincipal(sql: SqlStorage): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'owner_principal'").toArray()[0];
  return row?.value ?? null;
}
