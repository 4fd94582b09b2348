/**
 * Waits (docs/API.md §6), the doing part: the resume command, the driver side of the wait steps and
 * the run lookup. A wait holds no alarm: the slice that finds one ends, and only a resume (or a
 * stop) moves the turn again.
 */

import type { CallState } from "../projections";
import { idempotencyKeyFor, parseToolArgs } from "../tools";
import type { CommandCtx, RuntimeCtx } from "./deps";
import { type Base, invalidCallDrafts } from "./drafts";
import { ApiError } from "./errors";
import { beginWaitDraft, budgetWaitDraft, resumeDrafts, WAIT_TOOLS } from "./wait-drafts";

/**
 * Resume (docs/API.md §6, §7.12): only the current `waitId` of the open turn releases it, named with
 * a run of that turn; anything else is 409 and appends nothing. `turnOfRun` is the turn the run
 * belongs to (the caller has answered 404 for an unknown run). Answers the seq of the last event.
 */
export function resumeWait(
  rt: RuntimeCtx,
  input: { turnOfRun: string | null; waitId: string; text: string },
): { seq: number } {
  const turn = rt.require().openTurn;
  const wait = turn?.wait;
  if (!turn || !wait || wait.waitId !== input.waitId || input.turnOfRun !== turn.turnId)
    throw new ApiError("conflict", "waitId is not the current wait of this run");
  if (wait.kind === "child") throw new ApiError("conflict", "a child's wait ends when the child reports");
  if (wait.kind === "remote") throw new ApiError("conflict", "a remote task's wait ends with that task");
  const events = rt.commit(resumeDrafts(wait, { turnId: turn.turnId, runId: turn.runId }, input.text));
  return { seq: events.at(-1)!.seq };
}

/** Carries out `begin_wait` (a bad `wait_for` call gets its error like any tool) and `budget_wait`. */
export function carryOutWait(
  rt: RuntimeCtx,
  step: { kind: "begin_wait"; call: CallState } | { kind: "budget_wait"; waitId: string; modelCalls: number },
  base: Base,
): boolean {
  if (step.kind === "budget_wait") {
    rt.commit([budgetWaitDraft(base, step.waitId, step.modelCalls)]);
    return true;
  }
  const { call } = step;
  const tool = rt.toolFor(call.name);
  const parsed = tool ? parseToolArgs(tool, call.args) : null;
  if (!tool || !parsed?.ok) {
    const issues = parsed && !parsed.ok ? parsed.issues : [{ message: `unknown or disabled tool: ${call.name}` }];
    rt.commit(invalidCallDrafts(call, base, idempotencyKeyFor(rt.deps.sessionId, call.callId), issues));
    return true;
  }
  const reason = (parsed.args as { reason?: unknown }).reason;
  const key = idempotencyKeyFor(rt.deps.sessionId, call.callId);
  const kind = WAIT_TOOLS[call.name] ?? "wait_for";
  rt.commit([beginWaitDraft(call, base, key, kind, typeof reason === "string" ? reason : undefined)]);
  return true;
}

export type ResumeInput = { turnOfRun: string | null; waitId: string; text: string };

/** Releases the open turn's current wait (docs/API.md#resume), then the loop goes on; 409 for any other waitId. */
export async function resume(rt: CommandCtx, input: ResumeInput): Promise<{ seq: number }> {
  const answer = resumeWait(rt, input);
  rt.markDecided();
  await rt.kick();
  return answer;
}
