/**
 * The commands as the session object calls them: each one's decision in `commands.ts` (or its
 * feature), then what the runtime does after it — a turn a command opened or moved is decided,
 * and a parked loop is due again (docs/design.md#where-things-live).
 */

import type { Session } from "../projections";
import { type ChildReport, type ChildSpawn, childCreatedDraft, receiveChildReport, sameSpawn } from "./children";
import { appendMessage, decideApproval } from "./commands";
import type { RuntimeCtx } from "./deps";
import { ApiError } from "./errors";
import { resumeWait } from "./waits";

/** What the façade needs of the runtime beyond its context: the kick and the decided flag. */
export type Facade = RuntimeCtx & {
  session(): Session;
  kick(): Promise<void>;
  markDecided(): void;
};

export type MessageInput = { text: string; idempotencyKey?: string; source: string };
export type DecideInput = { requestId: string; decision: "approve" | "reject"; reason?: string; argsDigest?: string };
export type ResumeInput = { turnOfRun: string | null; waitId: string; text: string };

export async function postMessage(rt: Facade, input: MessageInput) {
  const { answer, opened, repeated } = appendMessage(rt, input);
  if (repeated) return answer;
  if (opened) rt.markDecided();
  // Arm the alarm before anything else can happen: the event and the alarm commit together.
  await rt.kick();
  await rt.failpoint("F0");
  return answer;
}

export async function decide(rt: Facade, input: DecideInput): Promise<Session> {
  decideApproval(rt, input);
  await rt.kick();
  return rt.session();
}

/** Releases the open turn's current wait (docs/API.md#resume); 409 for any other waitId. */
export async function resume(rt: Facade, input: ResumeInput): Promise<{ seq: number }> {
  const answer = resumeWait(rt, input);
  rt.markDecided();
  await rt.kick();
  return answer;
}

/**
 * The child side of a spawn: writes the session and its goal once (keyed by the callId); a
 * repeated create re-attaches and sends nothing twice.
 */
export async function createChild(rt: Facade, spawn: ChildSpawn & { owner: string }): Promise<Session> {
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
export async function childReport(rt: Facade, report: ChildReport): Promise<{ acked: true }> {
  if (receiveChildReport(rt, report)) await rt.kick();
  await rt.failpoint("F14");
  return { acked: true };
}
