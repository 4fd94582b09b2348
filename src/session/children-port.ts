import type { Result } from "../contract";
import type { ChildrenPort } from "../runtime/children";
import { sessionNamespace } from "./namespace";
import type { SessionObject } from "./session-object";

/** A child's name: derived from the parent and the callId, so a re-dispatch finds the same child. */
export function childName(parentId: string, callId: string): string {
  return `child:${parentId}:${callId}`;
}

/**
 * The session object's reach to other objects for sub-sessions (docs/API.md#sub-sessions): the
 * child is registered in the owner's directory before its object is written (so it is never
 * unreachable, and an id never written still answers 404), then created idempotently. The
 * child's id is derived in one place (`childId`), in the parent's namespace: a child lives in
 * its parent's jurisdiction, and the create, the report and the stop all reach that object.
 */
export function makeChildrenPort(
  env: Env,
  sessionId: string,
  self: { principal: () => string | null; jurisdiction: () => string | undefined },
): ChildrenPort {
  const childId = (callId: string) =>
    sessionNamespace(env, self.jurisdiction()).idFromName(childName(sessionId, callId));
  const stubOf = (id: string) =>
    env.SESSIONS.get(env.SESSIONS.idFromString(id)) as unknown as DurableObjectStub<SessionObject>;
  return {
    childIdFor: (callId) => childId(callId).toString(),
    async spawn(input) {
      const id = childId(input.callId);
      const directory = env.DIRECTORY.get(env.DIRECTORY.idFromString(input.directoryId));
      await directory.add(id.toString(), input.parentId, new Date().toISOString());
      const owner = self.principal();
      if (!owner) return { ok: false, error: { code: "internal", message: "this session has no recorded owner" } };
      const r = (await env.SESSIONS.get(id).createChild({ ...input, principal: owner })) as Result<{
        id: string;
        status: string;
      }>;
      return r.ok ? { ok: true, value: { sessionId: r.value.id, status: r.value.status } } : r;
    },
    report: (parentId, input) => stubOf(parentId).childReport(input) as Promise<Result<{ acked: true }>>,
    stop: (callId) =>
      env.SESSIONS.get(childId(callId)).stopFromParent({ parentId: sessionId, callId }) as Promise<Result<unknown>>,
  };
}

type SpawnKey = { parentId: string; callId: string };
const STOPPED_BEFORE_CREATE = "spawn-stopped-before-create";

/**
 * The child side of a stop that arrives before the child's create (a create that failed, or is
 * still on its way): kept beside the log, which stays unwritten, so that the create that comes
 * later is refused and the child never starts.
 */
export function barSpawn(kv: SyncKvStorage, spawn: SpawnKey): void {
  kv.put(STOPPED_BEFORE_CREATE, { parentId: spawn.parentId, callId: spawn.callId });
}

export function spawnBarred(kv: SyncKvStorage, spawn: SpawnKey): boolean {
  const bar = kv.get<SpawnKey>(STOPPED_BEFORE_CREATE);
  return bar?.parentId === spawn.parentId && bar.callId === spawn.callId;
}
