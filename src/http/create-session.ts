import { ApiError, type Result } from "../contract";
import type { Jurisdiction } from "./schemas";

/**
 * Creates a session so that it is never unreachable (CONTRACT §2): the id is registered in
 * the owner's directory first, then the object writes seq 1. A refused creation takes the
 * registration back. A creation whose outcome is unknown (the call threw) keeps it: a
 * registered id whose object was never written answers 404 and lists as nothing, while
 * an object written but not registered could never be reached again.
 */
export async function createRegistered<T>(steps: {
  register: () => Promise<unknown>;
  create: () => Promise<Result<T>>;
  unregister: () => Promise<unknown>;
}): Promise<T> {
  await steps.register();
  const result = await steps.create();
  if (!result.ok) {
    await steps.unregister();
    throw new ApiError(result.error.code, result.error.message);
  }
  return result.value;
}

/**
 * A new session id (CONTRACT §2): in a jurisdiction, minted by that jurisdiction's subnamespace,
 * so the id itself carries it and every later request reaches the object from the id alone.
 * Local workerd implements no jurisdictions: there it is 400, unless the test-only
 * `HW_SIMULATE_JURISDICTIONS=1` records the jurisdiction on an ordinary object.
 */
export function mintSessionId(env: Env, jurisdiction: Jurisdiction | undefined) {
  if (!jurisdiction) return { namespace: env.SESSIONS, id: env.SESSIONS.newUniqueId() };
  try {
    const namespace = env.SESSIONS.jurisdiction(jurisdiction);
    return { namespace, id: namespace.newUniqueId() };
  } catch (err) {
    if (!/not implemented/i.test((err as Error).message)) throw err;
    if (env.HW_SIMULATE_JURISDICTIONS === "1") return { namespace: env.SESSIONS, id: env.SESSIONS.newUniqueId() };
    throw new ApiError(
      "bad_request",
      `jurisdiction: ${jurisdiction} is not available on this runtime (local workerd has no jurisdictions; deploy to use them)`,
    );
  }
}
