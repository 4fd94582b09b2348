/**
 * The channel object's tables (docs/design.md#channels): the thread → session map, the inbound
 * events seen (dedupe) and waiting to be handled, the outbox of posts, and the approval cards.
 * All SQL of the channel object is here; rows are JSON text read back through the callers' types.
 */
import { rows, run, type SqlLike } from "../../storage/sql";
import type { OutboxRow } from "./outbox";
import type { Inbound, Post, ThreadRef } from "./platform";

export const CHANNEL_MIGRATIONS = [
  {
    id: "0001_channel",
    sql: `CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE threads (thread TEXT PRIMARY KEY, session_id TEXT NOT NULL, ref TEXT NOT NULL);
CREATE TABLE inbox (n INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, body TEXT NOT NULL, done INTEGER NOT NULL, next_at INTEGER NOT NULL, tries INTEGER NOT NULL);
CREATE TABLE outbox (n INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, thread TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, next_at INTEGER NOT NULL, tries INTEGER NOT NULL, sending INTEGER NOT NULL DEFAULT 0, message_id TEXT, sent_at INTEGER, error TEXT);
CREATE INDEX outbox_pending ON outbox (state, n);
CREATE INDEX inbox_pending ON inbox (done, n);
CREATE TABLE cards (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, request_id TEXT NOT NULL, args_digest TEXT NOT NULL)`,
  },
];

/** A post as the outbox keeps it: the thread apart, an edit named by the outbox key of the message it edits. */
export type StoredPost = Omit<Post, "thread" | "edit"> & { editOf?: string };

export function readMeta(sql: SqlLike, k: string): string | null {
  return rows<{ v: string }>(sql)`SELECT v FROM meta WHERE k = ${k}`[0]?.v ?? null;
}

export function writeMeta(sql: SqlLike, k: string, v: string): void {
  run(sql)`INSERT INTO meta (k, v) VALUES (${k}, ${v}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`;
}

// ---- threads ----------------------------------------------------------------------------

export function sessionOfThread(sql: SqlLike, thread: string): string | null {
  return (
    rows<{ session_id: string }>(sql)`SELECT session_id FROM threads WHERE thread = ${thread}`[0]?.session_id ?? null
  );
}

export function threadOfSession(sql: SqlLike, sessionId: string): ThreadRef | null {
  const r = rows<{ ref: string }>(sql)`SELECT ref FROM threads WHERE session_id = ${sessionId}`[0];
  return r ? (JSON.parse(r.ref) as ThreadRef) : null;
}

export function saveThread(sql: SqlLike, ref: ThreadRef, sessionId: string): void {
  run(
    sql,
  )`INSERT OR IGNORE INTO threads (thread, session_id, ref) VALUES (${ref.id}, ${sessionId}, ${JSON.stringify(ref)})`;
}

// ---- inbox ------------------------------------------------------------------------------

/** Stores an inbound event once: false when its key was seen before (a platform's retry). */
export function admitInbound(sql: SqlLike, key: string, inbound: Inbound, now: number): boolean {
  if (rows<{ n: number }>(sql)`SELECT n FROM inbox WHERE key = ${key}`.length > 0) return false;
  run(
    sql,
  )`INSERT INTO inbox (key, body, done, next_at, tries) VALUES (${key}, ${JSON.stringify(inbound)}, 0, ${now}, 0)`;
  return true;
}

export type InboxRow = { n: number; key: string; inbound: Inbound; tries: number };

export function dueInbound(sql: SqlLike, now: number): InboxRow[] {
  return rows<{ n: number; key: string; body: string; tries: number }>(
    sql,
  )`SELECT n, key, body, tries FROM inbox WHERE done = 0 AND next_at <= ${now} ORDER BY n LIMIT 20`.map((r) => ({
    n: r.n,
    key: r.key,
    inbound: JSON.parse(r.body) as Inbound,
    tries: r.tries,
  }));
}

export function inboundDone(sql: SqlLike, n: number): void {
  run(sql)`UPDATE inbox SET done = 1 WHERE n = ${n}`;
}

export function inboundRetry(sql: SqlLike, n: number, at: number): void {
  run(sql)`UPDATE inbox SET next_at = ${at}, tries = tries + 1 WHERE n = ${n}`;
}

// ---- outbox -----------------------------------------------------------------------------

/** Queues a post once per key (the event it reports): false if that key was queued before. */
export function enqueuePost(sql: SqlLike, key: string, thread: ThreadRef, post: StoredPost, at: number): boolean {
  if (rows<{ n: number }>(sql)`SELECT n FROM outbox WHERE key = ${key}`.length > 0) return false;
  run(
    sql,
  )`INSERT INTO outbox (key, thread, body, state, next_at, tries) VALUES (${key}, ${JSON.stringify(thread)}, ${JSON.stringify(post)}, 'pending', ${at}, 0)`;
  return true;
}

/**
 * A progress post of one turn: the first is queued, later ones replace its text and, once it was
 * sent, become an edit of it, due `at` (no sooner than 5 s after the last).
 */
export function upsertProgress(
  sql: SqlLike,
  key: string,
  thread: ThreadRef,
  text: string,
  at: (sentAt: number | null) => number,
): void {
  const r = rows<{ state: string; sent_at: number | null; body: string }>(
    sql,
  )`SELECT state, sent_at, body FROM outbox WHERE key = ${key}`[0];
  if (!r) {
    enqueuePost(sql, key, thread, { text }, at(null));
    return;
  }
  if (r.state === "dropped") return;
  const body = { ...(JSON.parse(r.body) as StoredPost), text };
  run(
    sql,
  )`UPDATE outbox SET body = ${JSON.stringify(body)}, state = 'pending', next_at = ${at(r.sent_at)}, tries = 0 WHERE key = ${key}`;
}

/** A turn's progress ends with its answer: an edit not yet sent is not sent. */
export function dropPending(sql: SqlLike, key: string): void {
  run(sql)`UPDATE outbox SET state = 'dropped' WHERE key = ${key} AND state = 'pending'`;
}

export function pendingPosts(sql: SqlLike): OutboxRow[] {
  return rows<{ key: string; n: number; thread: string; next_at: number; sent_at: number | null }>(
    sql,
  )`SELECT key, n, thread, next_at, sent_at FROM outbox WHERE state = 'pending' ORDER BY n LIMIT 200`.map((r) => ({
    key: r.key,
    n: r.n,
    thread: r.thread,
    nextAt: r.next_at,
    paced: r.sent_at !== null,
  }));
}

export type PostRow = { key: string; thread: ThreadRef; post: StoredPost; tries: number; messageId: string | null };

export function readPost(sql: SqlLike, key: string): PostRow | null {
  const r = rows<{ key: string; thread: string; body: string; tries: number; message_id: string | null }>(
    sql,
  )`SELECT key, thread, body, tries, message_id FROM outbox WHERE key = ${key}`[0];
  return r
    ? {
        key: r.key,
        thread: JSON.parse(r.thread) as ThreadRef,
        post: JSON.parse(r.body) as StoredPost,
        tries: r.tries,
        messageId: r.message_id,
      }
    : null;
}

/** Before a send: the retry time is stored first, so a crash mid-send comes back to it. */
export function markTrying(sql: SqlLike, key: string, retryAt: number): void {
  run(sql)`UPDATE outbox SET next_at = ${retryAt}, tries = tries + 1, sending = 1 WHERE key = ${key}`;
}

/**
 * When the object starts: a send marked in flight belonged to an instance that is gone (a crash,
 * an eviction), so it never got its answer: it is due now, not after its timeout.
 */
export function resumeInterruptedSends(sql: SqlLike, now: number): void {
  run(sql)`UPDATE outbox SET next_at = ${now}, sending = 0 WHERE sending = 1 AND state = 'pending'`;
}

export function markSent(sql: SqlLike, key: string, messageId: string, now: number): void {
  run(
    sql,
  )`UPDATE outbox SET state = 'sent', sending = 0, message_id = COALESCE(message_id, ${messageId}), sent_at = ${now}, error = NULL WHERE key = ${key}`;
}

export function markFailed(sql: SqlLike, key: string, error: string, retryAt: number | null): void {
  if (retryAt === null) run(sql)`UPDATE outbox SET state = 'failed', sending = 0, error = ${error} WHERE key = ${key}`;
  else run(sql)`UPDATE outbox SET next_at = ${retryAt}, sending = 0, error = ${error} WHERE key = ${key}`;
}

/** The earliest time anything is owed: an inbound event to handle or a post to send. */
export function nextDue(sql: SqlLike): number | null {
  const a = rows<{ at: number | null }>(sql)`SELECT MIN(next_at) AS at FROM inbox WHERE done = 0`[0]?.at ?? null;
  const b =
    rows<{ at: number | null }>(sql)`SELECT MIN(next_at) AS at FROM outbox WHERE state = 'pending'`[0]?.at ?? null;
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}

// ---- cards ------------------------------------------------------------------------------

export type CardRow = { sessionId: string; requestId: string; argsDigest: string };

export function saveCard(sql: SqlLike, id: string, card: CardRow): void {
  run(
    sql,
  )`INSERT OR IGNORE INTO cards (id, session_id, request_id, args_digest) VALUES (${id}, ${card.sessionId}, ${card.requestId}, ${card.argsDigest})`;
}

export function readCard(sql: SqlLike, id: string): CardRow | null {
  const r = rows<{ session_id: string; request_id: string; args_digest: string }>(
    sql,
  )`SELECT session_id, request_id, args_digest FROM cards WHERE id = ${id}`[0];
  return r ? { sessionId: r.session_id, requestId: r.request_id, argsDigest: r.args_digest } : null;
}
