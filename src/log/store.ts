import { canonical } from "../contract/canonical";
import type { Event, EventDraft } from "../contract/event";
import type { SqlLike, SqlValue } from "../storage/sql";
import { BlobStore } from "./blobs";
import {
  type EventRow,
  externalize,
  INLINE_EVENT_LIMIT,
  insertEvent,
  type KeptEvent,
  modelViewOf,
  nowIso,
  parseRow,
  payloadOverLimit,
  RecentEvents,
  serializeRow,
} from "./event-rows";
import { chainDigest, GENESIS_DIGEST } from "./hash";

export { INLINE_EVENT_LIMIT, parseRow, serializeRow };

export type Head = { highWater: number; headDigest: string };

/** Writes that join an append's transaction, given its committed events. */
export type Writes = (events: Event[]) => void;

/**
 * The session's append-only, hash-chained event log in Durable Object SQLite.
 * Every append reads the head, computes seq and digest and inserts in one
 * synchronous block: no await in between, so two appends can never fork the chain.
 */
export class EventStore {
  #head: Head | null = null;
  /** The last suffix `readFrom` read: a cache, dropped when an append fails. */
  #suffix: { from: number; events: Event[] } | null = null;
  /** The newest events this store committed (`RecentEvents`): a cache, dropped when an append fails. */
  readonly #recent = new RecentEvents();
  readonly blobs: BlobStore;

  constructor(
    private readonly sql: SqlLike,
    private readonly sessionId: string,
    private readonly transactionSync: <T>(fn: () => T) => T,
  ) {
    this.blobs = new BlobStore(sql);
  }

  head(): Head {
    if (this.#head) return this.#head;
    const row = this.sql
      .exec<{ seq: number; digest: string }>("SELECT seq, digest FROM events ORDER BY seq DESC LIMIT 1")
      .toArray()[0];
    this.#head = row ? { highWater: row.seq, headDigest: row.digest } : { highWater: 0, headDigest: GENESIS_DIGEST };
    return this.#head;
  }

  /** Appends events in one transaction and returns them as committed; `also` joins it (e.g. a workspace write). */
  append(drafts: EventDraft[], also?: (events: Event[]) => void): Event[] {
    return this.appendPrepared(drafts, also ? () => also : undefined);
  }

  /**
   * Appends events and the writes `prepare` asks for (given the events as they will be committed, before anything
   * is written; null when the events are the only write), atomically. One event with no blob and no model-view row
   * is then one INSERT, with no transaction (docs/design.md#3-storage). Whatever throws, nothing of it stays.
   */
  appendPrepared(drafts: EventDraft[], prepare?: (events: Event[]) => Writes | null): Event[] {
    if (drafts.length === 0) return [];
    try {
      const one = drafts.length === 1 ? this.#plain(drafts[0]!) : null;
      if (!one) {
        const kept: KeptEvent[] = [];
        const events = this.transactionSync(() => this.#appendAll(drafts, prepare, kept));
        this.#recent.add(kept);
        return events;
      }
      const events = [one.event];
      const writes = prepare?.(events) ?? null;
      if (writes)
        this.transactionSync(() => {
          insertEvent(this.sql, one.event, one.body);
          writes(events);
        });
      else insertEvent(this.sql, one.event, one.body);
      this.#head = { highWater: one.event.seq, headDigest: one.event.digest };
      this.#recent.add([{ event: one.event, bytes: one.body.length }]);
      return events;
    } catch (err) {
      this.#head = null;
      this.#suffix = null;
      this.#recent.clear();
      throw err;
    }
  }

  /**
   * The next event from one draft, with its body and digest, when writing it is one INSERT
   * (inline, no model-view row); null otherwise. Writes nothing.
   */
  #plain(draft: EventDraft): { event: Event; body: string } | null {
    const { highWater, headDigest } = this.head();
    const event = {
      ...draft,
      seq: highWater + 1,
      sessionId: this.sessionId,
      at: draft.at ?? nowIso(),
    } as Event;
    if (payloadOverLimit(event) || modelViewOf(event)) return null;
    const body = canonical(event);
    if (body.length > INLINE_EVENT_LIMIT) return null;
    event.digest = chainDigest(headDigest, body);
    return { event, body };
  }

  /**
   * Events with seq > `after`, ascending, at most `limit`, for the writer's own loop (the open
   * turn's suffix): what this store committed last is parsed from the kept tail, not read back;
   * nothing past the head is read at all. Only the store that writes the log may ask this: it
   * trusts its own head (one writer per object, docs/design.md#where-things-live).
   */
  readOwnAfter(after: number, limit: number): Event[] {
    const head = this.head().highWater;
    if (after >= head) return [];
    return (
      this.#recent.after(after, limit, head) ?? this.#rows("seq > ? ORDER BY seq LIMIT ?", after, limit).map(parseRow)
    );
  }

  /** Every draft in the caller's transaction: blobs, rows, model-view rows, then `prepare`'s writes. */
  #appendAll(
    drafts: EventDraft[],
    prepare: ((events: Event[]) => Writes | null) | undefined,
    kept: KeptEvent[],
  ): Event[] {
    let { highWater, headDigest } = this.head();
    const out: Event[] = [];
    const at = nowIso();
    for (const draft of drafts) {
      const seq = highWater + 1;
      let event: Omit<Event, "digest"> = { ...draft, seq, sessionId: this.sessionId, at: draft.at ?? at };
      // Serialized once; only an event over the inline limit is rewritten and serialized again.
      // One whose payload is plainly over it is rewritten first: a 10 MiB result is never serialized
      // inside its event only to be thrown away.
      let body: string;
      if (payloadOverLimit(event)) {
        event = externalize(this.blobs, event);
        body = canonical(event);
      } else {
        body = canonical(event);
        if (body.length > INLINE_EVENT_LIMIT) {
          event = externalize(this.blobs, event);
          body = canonical(event);
        }
      }
      const digest = chainDigest(headDigest, body);
      // The model view (of the event without its digest) is written with its event, so the cache
      // is never behind the log.
      const view = modelViewOf(event);
      // The event object is this append's own copy: it takes its digest in place.
      (event as Event).digest = digest;
      insertEvent(this.sql, event as Event, body);
      kept.push({ event: event as Event, bytes: body.length });
      if (view)
        this.sql.exec("INSERT INTO model_view (seq, body, digest) VALUES (?, ?, ?)", seq, canonical(view), digest);
      highWater = seq;
      headDigest = digest;
      out.push(event as Event);
    }
    prepare?.(out)?.(out);
    this.#head = { highWater, headDigest };
    return out;
  }

  /** Rows matching a condition, ascending by seq (`where` is a constant SQL fragment; values are bound). */
  #rows(where: string, ...bindings: SqlValue[]): EventRow[] {
    return this.sql.exec<EventRow>(`SELECT seq, body, digest FROM events WHERE ${where}`, ...bindings).toArray();
  }

  /** Events with seq > after, ascending, at most `limit`. */
  readAfter(after: number, limit: number): Event[] {
    return this.#rows("seq > ? ORDER BY seq LIMIT ?", after, limit).map(parseRow);
  }

  /** Serialized events (JSON text as stored) with seq > after, for export and sockets. */
  readSerializedAfter(after: number, limit: number): { seq: number; json: string }[] {
    return this.#rows("seq > ? ORDER BY seq LIMIT ?", after, limit).map((r) => ({ seq: r.seq, json: serializeRow(r) }));
  }

  /**
   * Events from seq `from` (inclusive) through `through` (default: the head): the suffix the run
   * loop projects. The last suffix read through the head is kept (docs/design.md#summary): asked
   * again from the same seq, only the events committed since are read. Callers must not change the events.
   */
  readFrom(from: number, through = Number.MAX_SAFE_INTEGER): Event[] {
    const head = this.head().highWater;
    if (through < head) return this.#rows("seq >= ? AND seq <= ? ORDER BY seq", from, through).map(parseRow);
    const kept = this.#suffix;
    const last = kept ? (kept.events.at(-1)?.seq ?? kept.from - 1) : 0;
    if (kept && kept.from === from && last <= head) {
      if (last < head) for (const r of this.#rows("seq > ? ORDER BY seq", last)) kept.events.push(parseRow(r));
      return kept.events.slice();
    }
    const events = this.#rows("seq >= ? ORDER BY seq", from).map(parseRow);
    this.#suffix = { from, events };
    return events.slice();
  }

  get(seq: number): Event | null {
    const row = this.#rows("seq = ?", seq)[0];
    return row ? parseRow(row) : null;
  }

  digestAt(seq: number): string | null {
    if (seq === 0) return GENESIS_DIGEST;
    return this.#rows("seq = ?", seq)[0]?.digest ?? null;
  }

  /**
   * A call's approval request and its response, in order: what the call index holds
   * (migrations/0007). Its functionCall and dispatch are not looked up by call: while a call has no
   * response it is in the open turn after its last model request, where `turnSuffix` holds them.
   */
  readCallOutcomes(callId: string): Event[] {
    return this.#rows("call_id = ? AND kind IN ('functionResponse', 'permissionRequest') ORDER BY seq", callId).map(
      parseRow,
    );
  }

  /** Stored rows from seq `fromSeq` to the head, ascending (what `verifySuffix` in ./verify.ts checks). */
  rowsFrom(fromSeq: number): EventRow[] {
    return this.#rows("seq >= ? ORDER BY seq", fromSeq);
  }

  /** Stored rows with `after` < seq ≤ `through`, at most `limit`: a chunk of a verification. */
  readRows(after: number, through: number, limit: number): EventRow[] {
    return this.#rows("seq > ? AND seq <= ? ORDER BY seq LIMIT ?", after, through, limit);
  }

  /** Approval decisions after `after` (they name a request, not a call, so `readCallOutcomes` misses them). */
  readDecisionsAfter(after: number): Event[] {
    return this.#rows(
      "kind = 'permissionDecision' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq > ? ORDER BY seq",
      after,
    ).map(parseRow);
  }

  /**
   * Events of the given kinds after `after`, ascending, at most `limit`, through the kind index.
   * Kind `text` is read for user messages only (the model's answers share it).
   */
  readKindsAfter(kinds: readonly string[], after: number, limit: number): Event[] {
    const list = kinds.map(() => "?").join(", ");
    // Through the index by name: left to itself, SQLite walks every row after `after` to skip a sort.
    return this.sql
      .exec<EventRow>(
        `SELECT seq, body, digest FROM events INDEXED BY events_kind
         WHERE kind IN (${list}) AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND (kind != 'text' OR author = 'user') AND seq > ? ORDER BY seq LIMIT ?`,
        ...kinds,
        after,
        limit,
      )
      .toArray()
      .map(parseRow);
  }

  /** Raw rows in pages, for verification without holding the whole log in memory. */
  *scanRows(pageSize = 1000): Generator<{ seq: number; body: string; digest: string }> {
    let after = 0;
    for (;;) {
      const page = this.#rows("seq > ? ORDER BY seq LIMIT ?", after, pageSize);
      if (page.length === 0) return;
      for (const r of page) yield r;
      after = page[page.length - 1]!.seq;
    }
  }
}
