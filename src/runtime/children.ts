/**
 * Sub-sessions (docs/API.md §6 `spawn_session`, §7.31) as commands see them: the create a parent
 * sends and the child's first write, a child's report taken exactly once per callId, the port to
 * other session objects and the outbox's backoff. What the loop does with a spawn (create or
 * re-attach, deliver the outbox) is `child-calls.ts`. Every decision reads the log.
 */
import type { Result } from "../contract/errors";
import type { EventDraft } from "../contract/event";
import type { ModelConfig } from "../model/types";
import { parseSpawnedBy, SPAWN_TOOL, type SpawnedBy } from "../projections/children";
import type { CloseReason, SessionOptions } from "../projections/summary";
import type { RuntimeCtx } from "./deps";
import { responseDraft } from "./drafts";
import { ApiError } from "./errors";

/** What a parent sends to create its child (idempotent: keyed by the parent and callId). */
export type ChildSpawn = {
  parentId: string;
  callId: string;
  depth: number;
  goal: string;
  options: SessionOptions;
  model: ModelConfig;
  directoryId: string;
};

/** A child's report of its goal turn's close. */
export type ChildReport = { callId: string; childId: string; status: CloseReason; result: string | null };

/** The object's reach to other session objects (wired by the Durable Object from its bindings). */
export type ChildrenPort = {
  /** The child's id: derived from this session and the callId. */
  childIdFor(callId: string): string;
  spawn(input: ChildSpawn): Promise<Result<{ sessionId: string; status: string }>>;
  report(parentId: string, input: ChildReport): Promise<Result<{ acked: true }>>;
  /** Stops the call's child (the same derived id as `childIdFor`). */
  stop(callId: string): Promise<Result<unknown>>;
};

/** Retry delay of the outbox after `failures` failed deliveries in a row. */
export function outboxDelay(failures: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1));
}

/**
 * A child's report on its parent: the call's response, appended once per callId (a repeated
 * report finds it and is only acknowledged). Returns whether it appended.
 */
export function receiveChildReport(rt: RuntimeCtx, report: ChildReport): boolean {
  const s = rt.require();
  if (!rt.deps.children || rt.deps.children.childIdFor(report.callId) !== report.childId)
    throw new ApiError("not_found", "unknown child");
  if (rt.deps.store.readCallOutcomes(report.callId).some((e) => e.content?.type === "functionResponse")) return false;
  // A call without a response is in the open turn after its last model request (every close answers
  // every open call): its dispatch is in the turn's suffix, with the call's turn and invocation.
  const turn = s.openTurn;
  const dispatch = turn
    ? rt.turnSuffix().find((e) => e.actions?.toolDispatch?.callId === report.callId && e.turnId === turn.turnId)
    : undefined;
  if (!turn || !dispatch) throw new ApiError("not_found", "unknown call");
  const ids = { turnId: turn.turnId, runId: turn.runId, invocationId: dispatch.invocationId };
  rt.commit([
    responseDraft({ callId: report.callId, name: SPAWN_TOOL }, ids, "ok", {
      sessionId: report.childId,
      status: report.status,
      result: report.result,
    }),
  ]);
  return true;
}

/** The child side of a spawn: the session and its goal, each written once (keyed by the callId). */
export function childCreatedDraft(id: string, spawn: ChildSpawn & { owner: string }): EventDraft {
  const spawnedBy: SpawnedBy = { sessionId: spawn.parentId, callId: spawn.callId, depth: spawn.depth };
  return {
    author: "runtime",
    modelVisibility: "hidden",
    actions: {
      stateDelta: {
        session: {
          id,
          parentId: spawn.parentId,
          options: spawn.options,
          model: spawn.model,
          spawnedBy,
          directoryId: spawn.directoryId,
          owner: spawn.owner,
        },
      },
    },
  };
}

/** Checks that an existing child is the one this spawn names (the id is derived, so it always is). */
export function sameSpawn(existing: unknown, spawn: ChildSpawn): boolean {
  const by = parseSpawnedBy(existing);
  return by !== null && by.sessionId === spawn.parentId && by.callId === spawn.callId;
}
