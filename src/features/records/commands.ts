/** Work-record commands from outside the loop (HTTP): each revision or entry is a hidden event first. */

import type { RuntimeCtx } from "../../runtime/deps";
import { ApiError } from "../../runtime/errors";
import { listRecords, readRecord, topicState } from "./cache";
import { decideEntry, decideRevision, type RecordDecision, type RecordEntry } from "./facts";

function unwrapDecision<T>(d: RecordDecision<T>): T {
  if (!d.ok) throw new ApiError(d.code, d.message);
  return d.fact;
}

function commitFact(rt: RuntimeCtx, key: "recordRevision" | "recordEntry", fact: unknown) {
  // Not part of any turn: the agent reads records through read_record, never from context.
  const [e] = rt.commit([{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { [key]: fact } } }]);
  return e!;
}

/** PUT: a new immutable revision; a stale `expectedRevision` is 409 and appends nothing. */
export function putRecord(
  rt: RuntimeCtx,
  topic: string,
  input: { content: string; expectedRevision: number; coversEntry?: number },
) {
  rt.require();
  const fact = unwrapDecision(decideRevision(topic, topicState(rt.deps.sql, topic), input));
  commitFact(rt, "recordRevision", fact);
  return { topic, revision: fact.revision };
}

/** POST entries: one append-only entry whose refs are seqs of this log, at most its head. */
export function appendRecordEntry(rt: RuntimeCtx, topic: string, input: { text: string; refs?: number[] }) {
  const s = rt.require();
  const fact = unwrapDecision(decideEntry(topic, topicState(rt.deps.sql, topic), s.highWater, input));
  const e = commitFact(rt, "recordEntry", fact);
  const entry: RecordEntry = { id: fact.entry, text: fact.text, refs: fact.refs, seq: e.seq, at: e.at };
  return { topic, entry };
}

/** The summary and one page of the entries it does not cover (docs/API.md#records). */
export function getRecord(rt: RuntimeCtx, topic: string, page: { after?: number; limit?: number } = {}) {
  rt.require();
  return readRecord(rt.deps.sql, topic, page);
}

export function getRecords(rt: RuntimeCtx) {
  rt.require();
  return { topics: listRecords(rt.deps.sql) };
}
