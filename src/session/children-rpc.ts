/**
 * The child's side of the calls between objects (docs/API.md#sub-sessions): a create the parent
 * already stopped is refused, and the parent's stop of a child not created yet bars its create.
 */
import { ApiError } from "../contract";
import type { Session } from "../projections";
import type { SessionRuntime } from "../runtime/session-runtime";
import { barSpawn, spawnBarred } from "./children-port";

type SpawnKey = { parentId: string; callId: string };

/** A child the parent stopped before it was created stays uncreated. */
export function refuseBarred(runtime: SessionRuntime | undefined, kv: SyncKvStorage, spawn: SpawnKey): void {
  if (!runtime?.exists() && spawnBarred(kv, spawn))
    throw new ApiError("conflict", "the parent stopped this sub-session before it was created");
}

/**
 * The parent's stop of this child: stopping the parent stops its children. A child not created
 * yet is barred from being created, so the stop holds; a written session that is not the spawn's
 * child is `not_found` (which the parent never takes as acknowledged). A run queued behind the
 * stopped turn then starts, as after any stop.
 */
export async function stopFromParent(
  runtime: SessionRuntime | undefined,
  kv: SyncKvStorage,
  spawn: SpawnKey,
): Promise<Session | null> {
  if (!runtime?.exists()) {
    barSpawn(kv, spawn);
    return null;
  }
  const by = runtime.summary?.children?.spawnedBy;
  if (by?.sessionId !== spawn.parentId || by.callId !== spawn.callId)
    throw new ApiError("not_found", "session not found");
  runtime.stop();
  await runtime.afterTurn();
  return runtime.session();
}
