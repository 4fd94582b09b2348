/**
 * An A2A task read from the log (docs/API.md#a2a-server): a task is the turn a message opened or
 * joined, named by that message's seq. Its state, its messages (the turn's visible user and model
 * text) and its answer are found in the log, bounded by the turn: rows from the message's seq on,
 * read by the primary key, at most `PAGE` at a time. Nothing is written.
 */
import { ApiError } from "../../contract";
import type { Event } from "../../log";
import type { Admitted } from "../../session/admission";
import { rows } from "../../storage";

/** At most this many messages are read by one call; a longer turn is read page by page. */
export const PAGE = 200;

export type TurnState = "working" | "input-required" | "completed" | "failed" | "canceled";

/** `messageId` is the A2A sender's own for a message that came over A2A (its idempotency key). */
export type TurnMessage = { seq: number; role: "user" | "agent"; text: string; at: string; messageId: string | null };

/** The idempotency key a message sent over A2A carries: the sender's `messageId` behind this prefix. */
export const KEY_PREFIX = "a2a:";

export type TurnView = {
  turnId: string;
  seq: number;
  createdAt: string;
  updatedAt: string;
  state: TurnState;
  /** What an `input-required` turn waits for, in words. */
  asked: string | null;
  /** Why a `failed` turn failed. */
  error: { code: string; message: string } | null;
  /** The turn's answer (its last visible model text) once it completed. */
  answer: { seq: number; text: string } | null;
  /** The turn's messages with seq > `after`, oldest first. */
  messages: TurnMessage[];
  /** The highest seq this view covers: the next read asks for what follows it. */
  head: number;
  /** The page was cut short at `PAGE` messages: read again after `head` for the rest. */
  more: boolean;
};

type Row = { seq: number; body: string };

function eventAt(sql: SqlStorage, seq: number): Event | null {
  const row = rows<Row>(sql)`SELECT seq, body FROM events WHERE seq = ${seq}`[0];
  return row ? (JSON.parse(row.body) as Event) : null;
}

function lastOf(sql: SqlStorage, turnId: string, from: number, through: number, type: "text" | "error") {
  const row = rows<Row>(sql)`
    SELECT seq, body FROM events WHERE seq >= ${from} AND seq <= ${through}
      AND json_extract(body, '$.turnId') = ${turnId} AND json_extract(body, '$.content.type') = ${type}
      AND (${type} = 'error' OR (author = 'model' AND visibility = 'visible'))
    ORDER BY seq DESC LIMIT 1`[0];
  return row ? { seq: row.seq, event: JSON.parse(row.body) as Event } : null;
}

function messagesOf(sql: SqlStorage, turnId: string, from: number, through: number, limit: number): TurnMessage[] {
  const found = rows<Row>(sql)`
    SELECT seq, body FROM events WHERE seq >= ${from} AND seq <= ${through}
      AND json_extract(body, '$.content.type') = 'text' AND visibility = 'visible' AND author IN ('user', 'model')
      AND json_extract(body, '$.turnId') = ${turnId}
    ORDER BY seq LIMIT ${limit}`;
  return found.flatMap((r) => {
    const e = JSON.parse(r.body) as Event;
    if (e.content?.type !== "text") return [];
    const key = e.actions?.stateDelta?.idempotencyKey;
    const messageId = typeof key === "string" && key.startsWith(KEY_PREFIX) ? key.slice(KEY_PREFIX.length) : null;
    const role = e.author === "user" ? ("user" as const) : ("agent" as const);
    return [{ seq: r.seq, role, text: e.content.text, at: e.at, messageId }];
  });
}

/**
 * The turn `turnId` as opened or joined by the user message at `seq`, and its messages after
 * `after`. An unknown seq, or one that is not a user message of that turn, is 404: a task id is
 * only ever minted from the answer of `postMessage`.
 */
export function readTurn({ sql, runtime }: Admitted, input: { turnId: string; seq: number; after?: number }): TurnView {
  const { turnId, seq } = input;
  const opened = Number.isSafeInteger(seq) && seq > 0 ? eventAt(sql, seq) : null;
  if (!opened || opened.turnId !== turnId || opened.author !== "user") throw new ApiError("not_found", "unknown task");
  const session = runtime.session();
  // The turn's close bounds every read of it: a task read long after reads its turn only.
  const close = rows<Row>(sql)`
    SELECT seq, body FROM events WHERE kind = 'turnClose' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq >= ${seq}
      AND json_extract(body, '$.turnId') = ${turnId} ORDER BY seq LIMIT 1`[0];
  const through = close?.seq ?? session.highWater;
  const after = Math.max(input.after ?? 0, seq - 1);
  const messages = messagesOf(sql, turnId, after + 1, through, PAGE + 1);
  // A page cut short covers only up to its last message: the state is told once all is read.
  const cut = messages.length > PAGE;
  const page = cut ? messages.slice(0, PAGE) : messages;
  const head = cut ? page.at(-1)!.seq : Math.max(through, after);
  const base = { turnId, seq, createdAt: opened.at, updatedAt: session.updatedAt, messages: page, head, more: cut };
  const none = { asked: null, error: null, answer: null };
  if (cut) return { ...base, ...none, state: "working" };
  if (close) {
    const closing = JSON.parse(close.body) as Event;
    const at = { ...base, ...none, updatedAt: closing.at };
    const reason = closing.actions?.turnClose?.reason;
    if (reason === "completed") {
      const last = lastOf(sql, turnId, seq, close.seq, "text");
      const text = last?.event.content?.type === "text" ? last.event.content.text : "";
      return { ...at, state: "completed", answer: { seq: last?.seq ?? close.seq, text } };
    }
    if (reason === "stopped") return { ...at, state: "canceled" };
    const last = lastOf(sql, turnId, seq, close.seq, "error")?.event.content;
    const error = last?.type === "error" ? { code: last.code, message: last.message } : null;
    return { ...at, state: "failed", error: error ?? { code: "failed", message: "the turn failed" } };
  }
  if (!session.openTurn) return { ...base, ...none, state: "working" };
  const asked = [
    ...session.pendingApprovals.map(
      (a) =>
        `approval ${a.requestId}: ${a.tool} (decide with POST /v1/sessions/${session.id}/approvals/${a.requestId})`,
    ),
    ...(session.wait && session.wait.kind !== "child"
      ? [`waiting (${session.wait.kind})${session.wait.reason ? `: ${session.wait.reason}` : ""}`]
      : []),
  ];
  if (asked.length > 0) return { ...base, ...none, state: "input-required", asked: asked.join("; ") };
  return { ...base, ...none, state: "working" };
}
