import type { Event } from "./event";
/** Work records: a topic's current revision and the entries it does not cover yet. */
export type RecordEntry = { id: number; text: string; refs: number[]; seq: number; at: string };

export type RecordView = {
  topic: string;
  revision: number;
  content: string;
  coversEntry: number;
  uncovered: RecordEntry[];
};

/** A topic as `GET /records` lists it. */
export type RecordTopic = { topic: string; revision: number; coversEntry: number; entries: number };

/** A revision of a topic's summary, as its `stateDelta.recordRevision` records it. */
export type RecordRevision = { topic: string; revision: number; content: string; coversEntry: number };
/** An entry of a topic, as its `stateDelta.recordEntry` records it. */
export type RecordEntryFact = { topic: string; entry: number; text: string; refs: number[] };

/** The record fact an event carries, if any (the transcript shows it as a `record` item). */
export function recordFactOf(
  e: Pick<Event, "actions">,
): { kind: "revision"; fact: RecordRevision } | { kind: "entry"; fact: RecordEntryFact } | null {
  const d = e.actions?.stateDelta;
  if (d?.recordRevision) return { kind: "revision", fact: d.recordRevision as RecordRevision };
  if (d?.recordEntry) return { kind: "entry", fact: d.recordEntry as RecordEntryFact };
  return null;
}
