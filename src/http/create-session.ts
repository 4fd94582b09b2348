import { ApiError, type Result } from "../contract";
import { sessionNamespace } from "../session/namespace";
import type { Jurisdiction } from "./session-options";

/**
 * Creates a session so that it is never unreachable (docs/API.md §2): the id is registered in
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
 * A new session id (docs/API.md#sessions): in a jurisdiction, minted by that jurisdiction's
 * subnamespace (`sessionNamespace`, which also decides what local workerd does), so the id
 * itself carries it and every later request reaches the object from the id alone.
 */
export function mintSessionId(env: Env, jurisdiction: Jurisdiction | undefined) {
  const namespace = sessionNamespace(env, jurisdiction);
  return { namespace, id: namespace.newUniqueId() };
}
