/**
 * One event as a row of the `events` table (docs/design.md#3-storage): how it is written (its
 * time, its columns, payloads over the inline limit moved to the blob store) and read back; and
 * its model view, the row `model_view` holds when the model sees it differently.
 */
import { canonical, canonicalOnce } from "../contract/canonical";
import { type BlobRef, type Event, eventCallId, eventKind } from "../contract/event";
import type { SqlLike } from "../storage/sql";
import type { BlobStore } from "./blobs";

/** Canonical JSON of an event over this size keeps its large values in the blob store (docs/API.md §3). */
export const INLINE_EVENT_LIMIT = 512 * 1024;

/** The content payload of an event (what `#externalize` moves first). */
function payloadOf(e: Pick<Event, "content">): unknown {
  const c = e.content;
  if (c?.type === "functionResponse") return c.response;
  if (c?.type === "functionCall") return c.args;
  if (c?.type === "text" || c?.type === "thinking") return c.text;
  return undefined;
}

/**
 * True when the payload alone certainly serializes past the inline limit: its strings sum past it
 * (canonical JSON holds every string at least at its length). Stops counting once past.
 */
export function payloadOverLimit(e: Pick<Event, "content">): boolean {
  const payload = payloadOf(e);
  // A model's text, the common case, is one string.
  if (typeof payload === "string") return payload.length > INLINE_EVENT_LIMIT;
  return stringsPast(payload, INLINE_EVENT_LIMIT) < 0;
}

/** `left` less the lengths of the strings in `v`, stopping once below zero. */
function stringsPast(v: unknown, left: number): number {
  if (typeof v === "string") return left - v.length;
  if (v === null || typeof v !== "object") return left;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    left = stringsPast(x, left);
    if (left < 0) return left;
  }
  return left;
}

export type EventRow = { seq: number; body: string; digest: string };

let lastNow = { ms: Number.NaN, iso: "" };

/** The current time as ISO 8601, formatted once per millisecond (many appends share one). */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastNow.ms) lastNow = { ms, iso: new Date(ms).toISOString() };
  return lastNow.iso;
}

/** Serves a stored row as the event's JSON text: the canonical body with its digest added. */
export function serializeRow(row: { body: string; digest: string }): string {
  return `${row.body.slice(0, -1)},"digest":"${row.digest}"}`;
}

export function parseRow(row: EventRow): Event {
  const event = JSON.parse(row.body) as Event;
  event.digest = row.digest;
  return event;
}

/** A value that can stand in the statement text as a SQL literal: a plain name, no quote. */
const NAME = /^[A-Za-z][\w:.-]{0,63}$/;
/** Statement texts by kind, author and visibility: [without a call id, with one]. */
const STATEMENTS = new Map<string, Map<string, Map<string, readonly [string, string]>>>();
/** Past this many combinations, new ones bind every value. */
const STATEMENTS_MAX = 128;
let remembered = 0;
const ALL_BOUND =
  "INSERT INTO events (seq, author, visibility, kind, call_id, body, digest) VALUES (?, ?, ?, ?, ?, ?, ?)";

function statementsFor(author: string, visibility: string, kind: string): readonly [string, string] | null {
  const hit = STATEMENTS.get(kind)?.get(author)?.get(visibility);
  if (hit) return hit;
  if (remembered >= STATEMENTS_MAX || !NAME.test(author) || !NAME.test(visibility) || !NAME.test(kind)) return null;
  const text = (callId: string) =>
    `INSERT INTO events (seq, author, visibility, kind, call_id, body, digest) VALUES (?, '${author}', '${visibility}', '${kind}', ${callId}, ?, ?)`;
  const pair = [text("NULL"), text("?")] as const;
  const byAuthor = STATEMENTS.get(kind) ?? new Map<string, Map<string, readonly [string, string]>>();
  STATEMENTS.set(kind, byAuthor);
  const byVisibility = byAuthor.get(author) ?? new Map<string, readonly [string, string]>();
  byAuthor.set(author, byVisibility);
  byVisibility.set(visibility, pair);
  remembered++;
  return pair;
}

/**
 * The event's row: its canonical body, digest and the columns the queries read. Each bound value
 * costs workerd's `exec` about 0.3 µs, more than the column's write, so the columns that take a
 * few values (author, visibility, kind, a missing call id) are literals in the statement text: a
 * handful of texts, each prepared once by the runtime's statement cache, and 3 bound values
 * (docs/design.md#3-storage). A value that is not a plain name is bound. `turn_id` is no longer
 * written: the turn is read from the body (`json_extract(body, '$.turnId')`), for old rows too.
 */
export function insertEvent(sql: SqlLike, event: Event, body: string): void {
  const kind = eventKind(event);
  const callId = eventCallId(event);
  const texts = statementsFor(event.author, event.modelVisibility, kind);
  if (!texts) sql.exec(ALL_BOUND, event.seq, event.author, event.modelVisibility, kind, callId, body, event.digest);
  else if (callId === null) sql.exec(texts[0], event.seq, body, event.digest);
  else sql.exec(texts[1], event.seq, callId, body, event.digest);
}

/** Moves payloads out of an event whose canonical JSON is over the inline limit (copying only what changes). */
export function externalize(blobs: BlobStore, event: Omit<Event, "digest">): Omit<Event, "digest"> {
  const toBlob = (value: unknown): BlobRef => {
    // The runtime serialized a large result already to measure and archive it: the same text.
    const text = typeof value === "string" ? value : canonicalOnce(value);
    const meta = blobs.put(text, typeof value === "string" ? "text/plain; charset=utf-8" : "application/json");
    return { $blob: { sha256: meta.sha256, bytes: meta.bytes, mediaType: meta.mediaType } };
  };
  const e = { ...event };
  const c = e.content;
  if (c?.type === "functionResponse") e.content = { ...c, response: toBlob(c.response) };
  else if (c?.type === "functionCall") e.content = { ...c, args: toBlob(c.args) };
  else if (c?.type === "text" || c?.type === "thinking")
    e.content = { ...c, text: toBlob(c.text) as unknown as string };
  const delta = e.actions?.stateDelta;
  if (delta && canonical(e).length > INLINE_EVENT_LIMIT) {
    const moved: Record<string, unknown> = {};
    for (const k of Object.keys(delta)) moved[k] = toBlob(delta[k]);
    e.actions = { ...e.actions, stateDelta: moved };
  }
  return e;
}

/** An offloaded tool result, recorded on its functionResponse event as `actions.stateDelta.offload`. */
export type OffloadMark = { sha256: string; bytes: number; preview: string };

/** The offload mark of a functionResponse event, if its result was archived when it was committed. */
export function offloadOf(e: Pick<Event, "actions">): OffloadMark | null {
  const mark = e.actions?.stateDelta?.offload as OffloadMark | undefined;
  return mark && typeof mark.sha256 === "string" ? mark : null;
}

/** What the model sees in place of an archived result (docs/API.md §5). */
export function placeholderFor(tool: string, mark: OffloadMark) {
  return {
    offloaded: true as const,
    tool,
    bytes: mark.bytes,
    sha256: mark.sha256,
    ref: `archive://${mark.sha256}`,
    preview: mark.preview,
  };
}

/**
 * The model view of an event (docs/design.md §6 "Bounded in bytes"), or null when the model sees the event
 * as it is. An offloaded result's view holds its placeholder instead of the result, so a context
 * build never reads or parses the archived bytes; the event itself keeps the whole result
 * (docs/API.md §7.5). Everything a projection reads besides the response (ids, status, the offload
 * mark) is kept, so the messages built from the view equal those built from the event.
 */
export function modelViewOf<E extends Pick<Event, "content" | "actions">>(event: E): E | null {
  const c = event.content;
  if (c?.type !== "functionResponse") return null;
  const mark = offloadOf(event);
  if (!mark) return null;
  return { ...event, content: { ...c, response: placeholderFor(c.name, mark) } };
}

/**
 * The events a store just committed (the newest, at most 64 and 128 KiB of stored bodies,
 * contiguous up to the head): the writer's own loop takes what follows a recent seq from here
 * instead of reading back and parsing rows it wrote (`EventStore.readOwnAfter`). Each is the event
 * the append built, equal to its row parsed (test/do/own-events.test.ts); readers must not change
 * it. Only the bodies' sizes are kept, not the bodies. A cache: cleared when an append fails.
 */

const RECENT_EVENTS = 64;
const RECENT_BYTES = 128 * 1024;

/** A committed event and the length of its stored body. */
export type KeptEvent = { event: Event; bytes: number };

export class RecentEvents {
  readonly #kept: KeptEvent[] = [];
  #bytes = 0;

  /** Events just committed, in order; events that do not follow the kept ones replace them. */
  add(events: KeptEvent[]): void {
    const kept = this.#kept;
    if (kept.length > 0 && kept.at(-1)!.event.seq + 1 !== events[0]?.event.seq) this.clear();
    for (const k of events) {
      kept.push(k);
      this.#bytes += k.bytes;
    }
    while (kept.length > RECENT_EVENTS || (this.#bytes > RECENT_BYTES && kept.length > 0))
      this.#bytes -= kept.shift()!.bytes;
  }

  clear(): void {
    this.#kept.length = 0;
    this.#bytes = 0;
  }

  /** Events with seq > `after`, at most `limit`, when the kept ones cover them up to `head`; else null. */
  after(after: number, limit: number, head: number): Event[] | null {
    const kept = this.#kept;
    const first = kept[0]?.event.seq;
    if (first === undefined || first > after + 1 || kept.at(-1)!.event.seq !== head) return null;
    const out: Event[] = [];
    const end = Math.min(kept.length, after + 1 - first + limit);
    for (let i = after + 1 - first; i < end; i++) out.push(kept[i]!.event);
    return out;
  }
}
