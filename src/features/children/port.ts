import type { Result } from "../../contract";
import type { SessionObject } from "../../session/session-object";
import type { ChildrenPort } from "./commands";

/** A child's name: derived from the parent and the callId, so a re-dispatch finds the same child. */
export function childName(parentId: string, callId: string): string {
  return `child:${parentId}:${callId}`;
}

/**
 * The session object's reach to other objects for sub-sessions (CONTRACT §6): the child is
 * registered in the owner's directory before its object is written (so it is never
 * unreachable, and an id never written still answers 404), then created idempotently.
 */
export function makeChildrenPort(env: Env, sessionId: string, principal: () => string | null): ChildrenPort {
  const ns = env.SESSIONS;
  const stubOf = (id: string) => ns.get(ns.idFromString(id)) as unknown as DurableObjectStub<SessionObject>;
  return {
    childIdFor: (callId) => ns.idFromName(childName(sessionId, callId)).toString(),
    async spawn(input) {
      const jurisdiction = (input.options as { jurisdiction?: DurableObjectJurisdiction }).jurisdiction;
      const named = jurisdiction ? ns.jurisdiction(jurisdiction) : ns;
      const id = named.idFromName(childName(input.parentId, input.callId));
      const directory = env.DIRECTORY.get(env.DIRECTORY.idFromString(input.directoryId));
      await directory.add(id.toString(), input.parentId, new Date().toISOString());
      const owner = principal();
      if (!owner) return { ok: false, error: { code: "internal", message: "this session has no recorded owner" } };
      const r = (await ns.get(id).createChild({ ...input, principal: owner })) as Result<{
        id: string;
        status: string;
      }>;
      return r.ok ? { ok: true, value: { sessionId: r.value.id, status: r.value.status } } : r;
    },
    report: (parentId, input) => stubOf(parentId).childReport(input) as Promise<Result<{ acked: true }>>,
    stop: (childId) => stubOf(childId).stopFromParent() as Promise<Result<unknown>>,
  };
}
