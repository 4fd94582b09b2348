/**
 * The work-records cache (migration 0005): rows written in the transaction that commits each
 * `recordRevision`/`recordEntry` event, read by the routes and the record tools. The log is the
 * truth: `rebuildRecordCache` refolds it.
 */
import type { Event } from "../../log";
import { rows, run, type SqlLike } from "../../storage/sql";
import { utf8ByteLength } from "../../tools/builtin/text";
import { type RecordEntry, type RecordView, recordFactOf, type TopicState } from "./facts";

/** Writes the cache rows for the record facts among `events` (call inside their commit). */
export function applyRecordEvents(sql: SqlLike, events: Pick<Event, "seq" | "at" | "actions">[]): void {
  for (const e of events) {
    const r = recordFactOf(e);
    if (r?.kind === "revision")
      run(sql)`INSERT INTO record_revisions (topic, revision, content, covers_entry, seq, at)
        VALUES (${r.fact.topic}, ${r.fact.revision}, ${r.fact.content}, ${r.fact.coversEntry}, ${e.seq}, ${e.at})`;
    else if (r?.kind === "entry")
      run(sql)`INSERT INTO record_entries (topic, entry, text, refs, seq, at)
        VALUES (${r.fact.topic}, ${r.fact.entry}, ${r.fact.text}, ${JSON.stringify(r.fact.refs)}, ${e.seq}, ${e.at})`;
  }
}

/** Empties the cache and refolds it from the log's record events (found through the `kind` index). */
export function rebuildRecordCache(sql: SqlLike, read: (after: number, limit: number) => Event[]): void {
  run(sql)`DELETE FROM record_revisions`;
  run(sql)`DELETE FROM record_entries`;
  for (let after = 0; ; ) {
    const page = read(after, 1000);
    if (page.length === 0) return;
    applyRecordEvents(sql, page);
    after = page.at(-1)!.seq;
  }
}

/** The topic's head: revision 0 with no entries when it was never written (docs/API.md §7.33). */
export function topicState(sql: SqlLike, topic: string): TopicState {
  const rev = rows<{ revision: number; covers_entry: number }>(sql)`
    SELECT revision, covers_entry FROM record_revisions WHERE topic = ${topic} ORDER BY revision DESC LIMIT 1`[0];
  const entries =
    rows<{ n: number }>(sql)`SELECT COALESCE(MAX(entry), 0) AS n FROM record_entries WHERE topic = ${topic}`[0]?.n ?? 0;
  return { revision: rev?.revision ?? 0, coversEntry: rev?.covers_entry ?? 0, entries };
}

/** docs/API.md#records: a page of uncovered entries holds at most this many, and this many bytes of text. */
export const RECORD_PAGE = { defaultLimit: 50, maxLimit: 200, maxBytes: 1_048_576 } as const;

/**
 * The latest revision of a topic and one page of the entries it does not cover, from `after`
 * (an entry id) on: at most `limit` entries and `RECORD_PAGE.maxBytes` of their text (always at
 * least one). `next` is the `after` of the next page, absent on the last.
 */
export function readRecord(
  sql: SqlLike,
  topic: string,
  page: { after?: number; limit?: number } = {},
): RecordView & { next?: number } {
  const rev = rows<{ revision: number; content: string; covers_entry: number }>(sql)`
    SELECT revision, content, covers_entry FROM record_revisions WHERE topic = ${topic}
    ORDER BY revision DESC LIMIT 1`[0];
  const coversEntry = rev?.covers_entry ?? 0;
  const from = Math.max(coversEntry, page.after ?? 0);
  const limit = Math.min(page.limit ?? RECORD_PAGE.defaultLimit, RECORD_PAGE.maxLimit);
  const found = rows<{ entry: number; text: string; refs: string; seq: number; at: string }>(sql)`
    SELECT entry, text, refs, seq, at FROM record_entries WHERE topic = ${topic} AND entry > ${from}
    ORDER BY entry LIMIT ${limit + 1}`;
  const uncovered: RecordEntry[] = [];
  let bytes = 0;
  for (const r of found.slice(0, limit)) {
    bytes += utf8ByteLength(r.text);
    if (uncovered.length > 0 && bytes > RECORD_PAGE.maxBytes) break;
    uncovered.push({ id: r.entry, text: r.text, refs: JSON.parse(r.refs) as number[], seq: r.seq, at: r.at });
  }
  const more = found.length > uncovered.length;
  return {
    topic,
    revision: rev?.revision ?? 0,
    content: rev?.content ?? "",
    coversEntry,
    uncovered,
    ...(more ? { next: uncovered.at(-1)?.id ?? from } : {}),
  };
}

export type TopicListing = { topic: string; revision: number; coversEntry: number; entries: number };

/** Every topic with a revision or an entry, by name. */
export function listRecords(sql: SqlLike): TopicListing[] {
  return rows<{ topic: string; revision: number; covers_entry: number; entries: number }>(sql)`
    SELECT t.topic AS topic,
      COALESCE((SELECT MAX(revision) FROM record_revisions r WHERE r.topic = t.topic), 0) AS revision,
      COALESCE((SELECT covers_entry FROM record_revisions r WHERE r.topic = t.topic ORDER BY revision DESC LIMIT 1), 0) AS covers_entry,
      COALESCE((SELECT MAX(entry) FROM record_entries e WHERE e.topic = t.topic), 0) AS entries
    FROM (SELECT topic FROM record_revisions UNION SELECT topic FROM record_entries) t
    ORDER BY t.topic`.map((r) => ({
    topic: r.topic,
    revision: r.revision,
    coversEntry: r.covers_entry,
    entries: r.entries,
  }));
}

/** The log's head seq, as the record tools check refs against it. */
export function headSeq(sql: SqlLike): number {
  return rows<{ n: number }>(sql)`SELECT COALESCE(MAX(seq), 0) AS n FROM events`[0]?.n ?? 0;
}
