import type { MemoryObject } from "./object";

/**
 * The principal's memory object, named after its directory object's id (hex): the Worker knows
 * it from the token, a session from its seq 1. A stub is bound to the object that made it.
 */
export function memoryOf(env: Env, directoryId: string): DurableObjectStub<MemoryObject> {
  return env.MEMORY.get(env.MEMORY.idFromName(`memory:${directoryId}`));
}
