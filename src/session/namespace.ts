/**
 * Where session objects live (docs/API.md#sub-sessions): the one place that derives a session
 * namespace from a jurisdiction, for new sessions, forks and sub-sessions alike, so that a
 * child is created, reported to and stopped at the same object.
 */
import { ApiError } from "../contract";
import type { SessionObject } from "./session-object";

export type SessionNamespace = DurableObjectNamespace<SessionObject>;

/**
 * The namespace of sessions in `jurisdiction` (its subnamespace, so an id minted or named there
 * carries it). Local workerd implements no jurisdictions: there it is 400, unless the test-only
 * `HW_SIMULATE_JURISDICTIONS=1` records the jurisdiction on an ordinary object.
 */
export function sessionNamespace(env: Env, jurisdiction: string | undefined): SessionNamespace {
  if (!jurisdiction) return env.SESSIONS;
  try {
    return env.SESSIONS.jurisdiction(jurisdiction as DurableObjectJurisdiction);
  } catch (err) {
    if (!/not implemented/i.test((err as Error).message)) throw err;
    if (env.HW_SIMULATE_JURISDICTIONS === "1") return env.SESSIONS;
    throw new ApiError(
      "bad_request",
      `jurisdiction: ${jurisdiction} is not available on this runtime (local workerd has no jurisdictions; deploy to use them)`,
    );
  }
}
