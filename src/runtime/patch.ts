/** PATCH /sessions/:id as a pure decision (tested in Node): what it changes. */
import type { ModelConfig } from "../model/types";
import type { Session } from "../projections";

/**
 * What a PATCH changes: only the fields whose value differs from the session's, so that a
 * PATCH that changes nothing appends nothing (docs/API.md#sessions).
 */
export function patchDelta(
  current: Pick<Session, "title" | "model" | "maxModelCallsPerTurn">,
  input: { title?: string | null; model?: ModelConfig; maxModelCallsPerTurn?: number },
): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  if (input.title !== undefined && input.title !== current.title) delta.title = input.title;
  if (input.maxModelCallsPerTurn !== undefined && input.maxModelCallsPerTurn !== current.maxModelCallsPerTurn)
    delta.maxModelCallsPerTurn = input.maxModelCallsPerTurn;
  if (input.model !== undefined && !sameModel(input.model, current.model)) delta.model = input.model;
  return delta;
}

function sameModel(a: ModelConfig, b: ModelConfig): boolean {
  return (
    a.provider === b.provider &&
    a.name === b.name &&
    a.contextWindow === b.contextWindow &&
    a.maxOutputTokens === b.maxOutputTokens
  );
}
