import { sha256Hex } from "../log/hash";

/** Who is calling a session object, as the Worker established it: the principal (sha256 of the bearer token). */
export type Caller = { principal: string };

/** docs/API.md §7.26: the owner as recorded in seq 1, bound to the session id so it says nothing elsewhere. */
export function ownerHash(sessionId: string, principal: string): string {
  return sha256Hex(`owner:${sessionId}:${principal}`);
}
