/**
 * Work beyond one turn as the object's operations (docs/design.md#plugs), called through
 * `SessionObject.call` once admitted: the inbox, triggers, runs and the resume of a run's wait
 * (docs/API.md#work-beyond-one-turn). An unknown name or run is 404 before a bad body is 400
 * (docs/API.md#authentication-and-errors).
 */
import { ApiError } from "../../contract";
import type { SessionRuntime } from "../../runtime/session-runtime";
import type { Operation } from "../../session/feature";
import type { SqlLike } from "../../storage/sql";
import { turnOfRun } from "./cache";
import { createTrigger, deleteTrigger, fireDueTriggers, runsOf, triggerExists, triggersOf } from "./commands";

type Work = { runtime: SessionRuntime; sql: SqlLike };
type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export async function addTrigger({ runtime, sql }: Work, input: Parameters<typeof createTrigger>[2]) {
  const trigger = createTrigger(runtime, sql, input);
  await runtime.arm();
  return trigger;
}

export async function removeTrigger({ runtime, sql }: Work, name: string, parsed: Parsed<void>): Promise<void> {
  if (!triggerExists(sql, name)) throw new ApiError("not_found", "unknown trigger");
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  deleteTrigger(runtime, sql, name);
  // The alarm moves to whatever else is owed (a lease, a retry, the outbox, the next trigger).
  await runtime.arm();
}

/** `POST /runs/:runId/resume`: releases the current wait of the run's turn, else 409. */
export function resumeRun(
  { runtime, sql }: Work,
  runId: string,
  parsed: Parsed<{ waitId: string; text?: string }>,
): Promise<{ seq: number }> {
  const turn = turnOfRun(sql, runId);
  if (turn === undefined) throw new ApiError("not_found", "unknown run");
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.resume({ turnOfRun: turn, waitId: parsed.value.waitId, text: parsed.value.text ?? "" });
}

/** An external message: opens a turn or joins the open one, recorded as `inbox:<source>`. */
export function postInbox({ runtime }: Work, input: { source: string; text: string; correlationId?: string }) {
  return runtime.postMessage({
    text: input.text,
    source: `inbox:${input.source}`,
    ...(input.correlationId ? { idempotencyKey: input.correlationId } : {}),
  });
}

/** Fires what is due; a failure here must not keep the run loop from its slice. */
export function fireTriggers({ runtime, sql }: Work): void {
  try {
    fireDueTriggers(runtime, sql);
  } catch (err) {
    console.error("highwater: firing triggers failed", err);
  }
}

/** The operations, by name, as the routes call them (their inputs validated at the edge). */
export const workOperations: Readonly<Record<string, Operation>> = {
  inbox: (a, input: Parameters<typeof postInbox>[1]) => postInbox(a, input),
  triggers: ({ runtime, sql }, page: { after: string | null; limit: number }) => triggersOf(runtime, sql, page),
  createTrigger: (a, input: Parameters<typeof createTrigger>[2]) => addTrigger(a, input),
  deleteTrigger: (a, i: { name: string; parsed: Parsed<void> }) => removeTrigger(a, i.name, i.parsed),
  runs: ({ runtime, sql }, page: { before: number | null; limit: number }) => runsOf(runtime, sql, page),
  resume: (a, i: { runId: string; parsed: Parsed<{ waitId: string; text?: string }> }) =>
    resumeRun(a, i.runId, i.parsed),
};
