/**
 * Where the chat routes start reading (docs/API.md#chat-ai-sdk-ui-message-stream), found through
 * the `events_kind (kind, seq)` index from the head backwards: the rows visited are the user's
 * text events of the messages asked for, never the log before them. Pure reads.
 */
import { ApiError } from "../contract";
import type { Event, ModelViewReads } from "../log";
import { readIdempotentAnswer } from "../runtime/message";
import type { SqlLike } from "../storage";
import type { Parsed } from "./reads";

/** What `GET /messages` asks for: how many messages, and the id of the message they come before. */
export type ChatWindowQuery = { limit: number; before?: string };
/** The events to fold: after `after`, through `through` (null: to the head). */
export type ChatWindow = { after: number; through: number | null };

/**
 * The seqs of the newest `count` user messages (a user's `text` event: sent, joined, inbox,
 * trigger or resume text), newest first. A model's text events are not in the kind index
 * (migration 0006), so they are not visited.
 */
export function lastUserMessageSeqs(sql: SqlLike, count: number, below = Number.MAX_SAFE_INTEGER): number[] {
  return sql
    .exec<{ seq: number }>(
      "SELECT seq FROM events WHERE kind = 'text' AND author = 'user' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq < ? ORDER BY seq DESC LIMIT ?",
      below,
      count,
    )
    .toArray()
    .map((r) => r.seq);
}

/**
 * The event after which the newest `count` UI messages before seq `below` lie: just before the
 * `count`th-last user message there (each user message is at least one UI message), else 0.
 */
export function chatWindowAfter(sql: SqlLike, count: number, below = Number.MAX_SAFE_INTEGER): number {
  const seqs = lastUserMessageSeqs(sql, count, below);
  return seqs.length < count ? 0 : seqs[seqs.length - 1]! - 1;
}

/**
 * The first seq after the messages that come before message `id` (ids as docs/API.md#chat-ai-sdk-ui-message-stream
 * gives them): `a_S` comes after the user message at S, `u_S` is at S, and a chat's own id is
 * looked up as the idempotency key its message was sent with. 404 for an id the session never gave.
 */
function boundaryOf(sql: SqlLike, transactionSync: <T>(fn: () => T) => T, id: string): number {
  const own = /^([au])_(\d{1,15})$/.exec(id);
  if (own) {
    const seq = Number(own[2]);
    const row = sql
      .exec<{ author: string }>("SELECT author FROM events WHERE seq = ? AND kind = 'text'", seq)
      .toArray();
    if (row[0]?.author === "user") return own[1] === "a" ? seq + 1 : seq;
  }
  const sent = readIdempotentAnswer(sql, transactionSync, "http", `ui:${id}`);
  if (sent) return sent.seq;
  throw new ApiError("not_found", "before: no message with this id");
}

/** `GET /messages`: the events of the newest `limit` messages (before `before`); the query is checked after admission. */
export function chatWindow(
  sql: SqlLike,
  transactionSync: <T>(fn: () => T) => T,
  query: Parsed<ChatWindowQuery>,
): ChatWindow {
  if (!query.ok) throw new ApiError("bad_request", query.message);
  const { limit, before } = query.value;
  const below = before === undefined ? Number.MAX_SAFE_INTEGER : boundaryOf(sql, transactionSync, before);
  return { after: chatWindowAfter(sql, limit, below), through: before === undefined ? null : below - 1 };
}

/** The seq of the last model call (a compaction's excluded), or 0. */
export function lastModelCallSeq(sql: SqlLike): number {
  const row = sql
    .exec<{ seq: number }>(
      `SELECT seq FROM events WHERE kind = 'modelRequest' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse')
         AND json_extract(body, '$.actions.modelRequest.purpose') IS NOT 'compaction' ORDER BY seq DESC LIMIT 1`,
    )
    .toArray()[0];
  return row?.seq ?? 0;
}

/** Events a chat page holds at most, and the bytes of bodies after which it ends (one event at least). */
export const CHAT_PAGE = { events: 200, bytes: 2 * 1024 * 1024 };

/**
 * One page of the events a chat route folds, after `after` through `through` (null: the head), as
 * the model saw them: an offloaded result is its placeholder, never the archived bytes.
 * `atHead` says nothing is left to read.
 */
export type ChatEventsPage = { events: Event[]; atHead: boolean };

export function chatEventsPage(
  view: Pick<ModelViewReads, "pageAfter">,
  after: number,
  through: number | null,
): ChatEventsPage {
  const last = through ?? Number.MAX_SAFE_INTEGER;
  const { events, more } = view.pageAfter(after, last, CHAT_PAGE.events, CHAT_PAGE.bytes);
  return { events, atHead: !more };
}
