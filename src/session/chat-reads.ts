/**
 * Where the chat routes start reading (docs/API.md#chat-ai-sdk-ui-message-stream), found through
 * the `events_kind (kind, seq)` index from the head backwards: the rows visited are the user and
 * model text events of the messages asked for, never the log before them. Pure reads.
 */
import type { SqlLike } from "../storage";

/**
 * The seqs of the newest `count` user messages (a user's `text` event: sent, joined, inbox,
 * trigger or resume text), newest first. A model's text events share the index's `kind`, so
 * they are visited too, one row each.
 */
export function lastUserMessageSeqs(sql: SqlLike, count: number): number[] {
  return sql
    .exec<{ seq: number }>(
      "SELECT seq FROM events WHERE kind = 'text' AND author = 'user' ORDER BY seq DESC LIMIT ?",
      count,
    )
    .toArray()
    .map((r) => r.seq);
}

/** The event after which the newest `count` UI messages lie: before the `count`th-last user message, else 0. */
export function chatWindowAfter(sql: SqlLike, count: number): number {
  const seqs = lastUserMessageSeqs(sql, count);
  return seqs.length < count ? 0 : seqs[seqs.length - 1]! - 1;
}

/** The seq of the last model call (a compaction's excluded), or 0. */
export function lastModelCallSeq(sql: SqlLike): number {
  const row = sql
    .exec<{ seq: number }>(
      `SELECT seq FROM events WHERE kind = 'modelRequest'
         AND json_extract(body, '$.actions.modelRequest.purpose') IS NOT 'compaction' ORDER BY seq DESC LIMIT 1`,
    )
    .toArray()[0];
  return row?.seq ?? 0;
}
