/**
 * Commands that change a session from outside the loop: create, patch, decide, stop, a child's
 * create and report (a message is `message.ts`). Each one's decision, then what the runtime does
 * after it: a turn a command opened or moved is decided, and a parked loop is due again.
 */
import type { EventDraft } from "../contract/event";
import { REQUEST_ID } from "../contract/session";
import type { ModelConfig } from "../model/types";
import { projectRunState, type RunState } from "../projections/run-state";
import { type Session, type SessionCreated, withArgsDigest } from "../projections/summary";
import { type ChildReport, type ChildSpawn, childCreatedDraft, receiveChildReport, sameSpawn } from "./children";
import { failureDrafts, stopDrafts } from "./close-drafts";
import type { CommandCtx, RuntimeCtx } from "./deps";
import { rejectedDraft } from "./drafts";
import { ApiError } from "./errors";
import { appendMessage } from "./message";
import { patchDelta } from "./patch";
import { approvalKnown } from "./state";

export { REQUEST_ID };

export function createSession(rt: RuntimeCtx, input: SessionCreated): Session {
  if (rt.summary) throw new ApiError("conflict", "session already exists");
  rt.commit([{ author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { session: input } } }]);
  return rt.session();
}

export function patchSession(
  rt: RuntimeCtx,
  input: { title?: string | null; model?: ModelConfig; maxModelCallsPerTurn?: number },
): Session {
  const s = rt.require();
  const delta = patchDelta(rt.session(), input);
  if (Object.keys(delta).length === 0) return rt.session();
  rt.commit([
    { author: "user", modelVisibility: "hidden", turnId: s.openTurn?.turnId, actions: { stateDelta: delta } },
  ]);
  return rt.session();
}

/** Records an approval decision; a reject answers the call at once (no dispatch). */
export function decideApproval(
  rt: RuntimeCtx,
  input: { requestId: string; decision: "approve" | "reject"; reason?: string; argsDigest?: string },
): void {
  const s = rt.require();
  if (!REQUEST_ID.test(input.requestId)) throw new ApiError("not_found", "unknown approval");
  const pending = s.pendingApprovals.find((p) => p.requestId === input.requestId);
  if (!pending) {
    if (approvalKnown(rt.deps.sql, input.requestId)) throw new ApiError("conflict", "approval already decided");
    throw new ApiError("not_found", "unknown approval");
  }
  // docs/API.md §7.17: a decision is bound to the exact arguments the human saw.
  const argsDigest = withArgsDigest(pending).argsDigest;
  if (input.argsDigest !== undefined && input.argsDigest !== argsDigest)
    throw new ApiError("conflict", "argsDigest does not match the pending call's arguments");
  const turn = s.openTurn!;
  const base = { turnId: turn.turnId, runId: turn.runId };
  const decision = {
    requestId: input.requestId,
    decision: input.decision,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    argsDigest,
  };
  const drafts: EventDraft[] = [
    { author: "user", modelVisibility: "hidden", ...base, actions: { permissionDecision: decision } },
  ];
  if (input.decision === "reject")
    drafts.push(
      rejectedDraft({ callId: pending.callId, name: pending.tool }, base, {
        reason: input.reason ?? "rejected by user",
      }),
    );
  rt.commit(drafts);
}

/**
 * Dismisses the current recovery notice for every browser and the API (docs/API.md §2, §7.11):
 * a hidden `stateDelta.recoveryNoticeDismissed`; 409 when `atSeq` is not the current notice's.
 */
export function dismissRecoveryNotice(rt: RuntimeCtx, input: { atSeq: number }): Session {
  const s = rt.require();
  if (!s.recoveryNotice) throw new ApiError("conflict", "no recovery notice to dismiss");
  if (s.recoveryNotice.atSeq !== input.atSeq)
    throw new ApiError("conflict", `atSeq ${input.atSeq} is not the current notice's (${s.recoveryNotice.atSeq})`);
  rt.commit([
    {
      author: "user",
      modelVisibility: "hidden",
      ...(s.openTurn ? { turnId: s.openTurn.turnId } : {}),
      actions: { stateDelta: { recoveryNoticeDismissed: { atSeq: input.atSeq } } },
    },
  ]);
  return rt.session();
}

/**
 * Stop (docs/API.md#sub-sessions): one synchronous block answers every open call, records the
 * children to stop and closes the turn.
 */
export function stopTurn(rt: RuntimeCtx): boolean {
  const turn = rt.require().openTurn;
  if (!turn) return false;
  rt.commit(stopDrafts(openRunState(rt), { turnId: turn.turnId, runId: turn.runId }));
  return true;
}

/**
 * A failure that closes the open turn (docs/API.md#sub-sessions): the error, then, like a stop,
 * every open call answered and every child still at work stopped, in one block.
 */
export function failTurn(rt: RuntimeCtx, code: string, message: string): void {
  const turn = rt.require().openTurn;
  if (!turn) return;
  rt.commit(failureDrafts(openRunState(rt), { turnId: turn.turnId, runId: turn.runId }, code, message));
}

/** The open turn's run state; a log that cannot be read (it failed verification) has no calls to answer. */
function openRunState(rt: RuntimeCtx): RunState {
  try {
    return rt.runState();
  } catch (err) {
    console.error("highwater: the open turn could not be read; closing it without answering its calls", err);
    return projectRunState([]);
  }
}

export type DecideInput = { requestId: string; decision: "approve" | "reject"; reason?: string; argsDigest?: string };

export async function decide(rt: CommandCtx, input: DecideInput): Promise<Session> {
  decideApproval(rt, input);
  await rt.kick();
  return rt.session();
}

/**
 * The child side of a spawn: writes the session and its goal once (keyed by the callId); a
 * repeated create re-attaches and sends nothing twice.
 */
export async function createChild(rt: CommandCtx, spawn: ChildSpawn & { owner: string }): Promise<Session> {
  const created = rt.deps.store.readAfter(0, 1)[0]?.actions?.stateDelta?.session as { spawnedBy?: unknown } | undefined;
  if (rt.summary && !sameSpawn(created?.spawnedBy, spawn))
    throw new ApiError("conflict", "this session is not that spawn's child");
  if (!rt.summary) rt.commit([childCreatedDraft(rt.deps.sessionId, spawn)]);
  const { repeated } = appendMessage(rt, {
    text: spawn.goal,
    idempotencyKey: `spawn:${spawn.callId}`,
    source: "parent",
  });
  if (!repeated) {
    rt.markDecided();
    await rt.kick();
  }
  return rt.session();
}

/** A child's report: the call's response once per callId, then the parent goes on. */
export async function childReport(rt: CommandCtx, report: ChildReport): Promise<{ acked: true }> {
  if (receiveChildReport(rt, report)) await rt.kick();
  await rt.failpoint("F14");
  return { acked: true };
}
