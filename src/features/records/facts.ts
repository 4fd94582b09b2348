/**
 * Work records (docs/API.md §6, §7.33) as facts of the log: a topic's summary has immutable numbered
 * revisions and its entries are append-only. Each is one `stateDelta` (`recordRevision` or
 * `recordEntry`) on an event; the decisions here are pure and take the topic's current state.
 */
import type { RecordEntryFact, RecordRevision } from "../../contract/records";

/** Topic names: a letter or digit, then up to 63 of `[A-Za-z0-9._-]` (never `.`/`..`, safe in a URL path). */
export const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Most refs one entry may carry. */
export const MAX_REFS = 100;
/** Largest summary content or entry text (UTF-8 bytes), as for a message's text. */
export const MAX_RECORD_BYTES = 262_144;

export type { RecordEntry, RecordEntryFact, RecordRevision, RecordView } from "../../contract/records";
export type TopicState = { revision: number; coversEntry: number; entries: number };

export type RecordDecision<T> =
  | { ok: true; fact: T }
  | { ok: false; code: "bad_request" | "conflict"; message: string };

export { recordFactOf } from "../../contract/records";

/** A new revision, or why not: a stale `expectedRevision` is a conflict; `coversEntry` must name an entry. */
export function decideRevision(
  topic: string,
  state: TopicState,
  input: { content: string; expectedRevision: number; coversEntry?: number },
): RecordDecision<RecordRevision> {
  const coversEntry = input.coversEntry ?? state.coversEntry;
  if (coversEntry > state.entries)
    return {
      ok: false,
      code: "bad_request",
      message: `coversEntry: ${coversEntry} is past the last entry (${state.entries})`,
    };
  if (input.expectedRevision !== state.revision)
    return {
      ok: false,
      code: "conflict",
      message: `expectedRevision ${input.expectedRevision} is stale: ${topic} is at revision ${state.revision}`,
    };
  return { ok: true, fact: { topic, revision: state.revision + 1, content: input.content, coversEntry } };
}

/** A new entry, or why not: refs are event seqs of this session, at most `highWater` (docs/API.md §7.33). */
export function decideEntry(
  topic: string,
  state: TopicState,
  highWater: number,
  input: { text: string; refs?: number[] },
): RecordDecision<RecordEntryFact> {
  const refs = [...new Set(input.refs ?? [])].sort((a, b) => a - b);
  const bad = refs.find((r) => r > highWater);
  if (bad !== undefined)
    return { ok: false, code: "bad_request", message: `refs: ${bad} is past highWater ${highWater}` };
  return { ok: true, fact: { topic, entry: state.entries + 1, text: input.text, refs } };
}
