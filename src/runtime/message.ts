/**
 * A user message (docs/API.md §3 Turns): a repeated idempotency key answers from the idempotency
 * table, else one `user` event opens a turn or joins the open one, and the alarm is armed.
 *
 * The idempotency table (docs/API.md#idempotency): request keys to their first answer, a cache
 * of the log. The key is recorded on the event it created (`actions.stateDelta.idempotencyKey`),
 * each commit folds its events into the table, and a marker row in the same table says how far;
 * a table that lost its rows (marker gone) or is behind the log is folded again from the events
 * before it answers, so a repeated key never appends twice.
 */
import { z } from "zod";
import type { Event } from "../contract/event";
import { rows, run, type SqlLike } from "../storage/sql";
import type { CommandCtx, RuntimeCtx } from "./deps";

export type MessageInput = { text: string; idempotencyKey?: string; source: string };

/** A user message: opens a turn or joins the open one (docs/API.md §3 Turns). */
export function appendMessage(
  rt: RuntimeCtx,
  input: { text: string; idempotencyKey?: string; source: string },
): { answer: MessageAnswer; opened: boolean; repeated: boolean } {
  const s = rt.require();
  // An inbox correlationId is recorded like an idempotencyKey (docs/API.md §7.16), scoped by its
  // source; the commit folds it into the table (docs/API.md#idempotency).
  if (input.idempotencyKey) {
    const prior = readIdempotentAnswer(rt.deps.sql, rt.deps.transactionSync, input.source, input.idempotencyKey);
    if (prior) return { answer: prior, opened: false, repeated: true };
  }
  const open = s.openTurn;
  const turnId = open?.turnId ?? crypto.randomUUID();
  const runId = open?.runId ?? crypto.randomUUID();
  let answer: MessageAnswer = { turnId, seq: 0 };
  rt.commit(
    [
      {
        author: "user",
        source: input.source,
        modelVisibility: "visible",
        turnId,
        runId,
        content: { type: "text", text: input.text },
        ...(input.idempotencyKey ? { actions: { stateDelta: { idempotencyKey: input.idempotencyKey } } } : {}),
      },
    ],
    ([e]) => {
      answer = { turnId, seq: e!.seq };
    },
  );
  return { answer, opened: !open, repeated: false };
}

export async function postMessage(rt: CommandCtx, input: MessageInput) {
  const { answer, opened, repeated } = appendMessage(rt, input);
  if (repeated) return answer;
  if (opened) rt.markDecided();
  // Arm the alarm before anything else can happen: the event and the alarm commit together.
  await rt.kick();
  await rt.failpoint("F0");
  return answer;
}

const Answer = z.object({ turnId: z.string(), seq: z.number() });
const Row = z.object({ v: z.literal(1), answer: Answer });
export type MessageAnswer = z.infer<typeof Answer>;

/** The marker's key: no request key has it, since every request key starts with its scope. */
const THROUGH = "#through";
const PAGE = 500;

/**
 * The table key of a request key from `source` (docs/API.md#idempotency): a message's
 * `idempotencyKey` is one space per session, shared by HTTP and the WebSocket; an inbox
 * `correlationId` is scoped by its source, so two systems that both send "7" are two inputs.
 * Both parts are on the event the request created (its `source` and
 * `stateDelta.idempotencyKey`), which is what lets the table be rebuilt from the log. Rows
 * written before inbox keys held their source (`inbox:<id>`) are superseded by that rebuild.
 */
export function idempotencyKeyOf(source: string, key: string): string {
  return source.startsWith("inbox:") ? `${source}:${key}` : `message:${key}`;
}

function parse<T>(schema: z.ZodType<T>, text: string | undefined): T | null {
  if (text === undefined) return null;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * The first answer to `key` from `source`, from the table once it has caught up with the log. A
 * row an older Worker wrote without the source (`inbox:<id>`) answers only a repeat from the
 * source its event recorded.
 */
export function readIdempotentAnswer(
  sql: SqlLike,
  transactionSync: <T>(fn: () => T) => T,
  source: string,
  key: string,
): MessageAnswer | null {
  catchUpIdempotency(sql, transactionSync);
  const answer = answerOf(sql, idempotencyKeyOf(source, key));
  if (answer || !source.startsWith("inbox:")) return answer;
  const legacy = answerOf(sql, `inbox:${key}`);
  if (!legacy) return null;
  const body = rows<{ body: string }>(sql)`SELECT body FROM events WHERE seq = ${legacy.seq}`[0]?.body;
  return body && (JSON.parse(body) as Event).source === source ? legacy : null;
}

function answerOf(sql: SqlLike, key: string): MessageAnswer | null {
  const text = rows<{ answer: string }>(sql)`SELECT answer FROM idempotency WHERE key = ${key}`[0]?.answer;
  // A row from before versioning holds the bare answer.
  return parse(Row, text)?.answer ?? parse(Answer, text);
}

/**
 * Folds committed events into the table; call inside the transaction that appended them. The
 * marker moves with each key written (a commit without one writes nothing), so a lookup catches
 * up over the user messages since the last key only.
 */
export function applyIdempotencyEvents(sql: SqlLike, events: Event[]): void {
  let last: number | null = null;
  for (const e of events) {
    if (!holdsKey(e)) continue;
    const key = e.actions?.stateDelta?.idempotencyKey as string;
    const answer: MessageAnswer = { turnId: e.turnId, seq: e.seq };
    run(sql)`INSERT OR IGNORE INTO idempotency (key, answer)
      VALUES (${idempotencyKeyOf(e.source, key)}, ${JSON.stringify({ v: 1, answer })})`;
    last = e.seq;
  }
  if (last !== null && markerOf(sql) !== undefined) writeThrough(sql, last);
}

function holdsKey(e: Event): e is Event & { turnId: string; source: string } {
  return typeof e.actions?.stateDelta?.idempotencyKey === "string" && !!e.turnId && typeof e.source === "string";
}

/** Whether `applyIdempotencyEvents` writes anything for these events. */
export function touchesIdempotency(events: Event[]): boolean {
  return events.some(holdsKey);
}

function markerOf(sql: SqlLike): string | undefined {
  return rows<{ answer: string }>(sql)`SELECT answer FROM idempotency WHERE key = ${THROUGH}`[0]?.answer;
}

function writeThrough(sql: SqlLike, seq: number) {
  run(sql)`INSERT INTO idempotency (key, answer) VALUES (${THROUGH}, ${String(seq)})
    ON CONFLICT (key) DO UPDATE SET answer = excluded.answer`;
}

/**
 * Brings the table up to the head: from its marker, or from the start when the marker is gone.
 * Only user text events can carry a key, read by their kind in pages.
 */
export function catchUpIdempotency(sql: SqlLike, transactionSync: <T>(fn: () => T) => T): void {
  const marker = markerOf(sql);
  const through = marker === undefined ? 0 : Number(marker) || 0;
  const head = rows<{ seq: number | null }>(sql)`SELECT MAX(seq) AS seq FROM events`[0]?.seq ?? 0;
  if (marker !== undefined && through >= head) return;
  transactionSync(() => {
    for (let after = through; ; ) {
      const page = rows<{ seq: number; body: string }>(sql)`SELECT seq, body FROM events
        WHERE kind = 'text' AND author = 'user' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq > ${after} ORDER BY seq LIMIT ${PAGE}`;
      applyIdempotencyEvents(
        sql,
        page.map((r) => JSON.parse(r.body) as Event),
      );
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    writeThrough(sql, head);
  });
}
