/**
 * A copy of `EventStore.append` (src/log/store.ts) with the change the bench proposes behind
 * a switch, so its effect is measured beside the real append in the same run. Not used by
 * the runtime: a finding here is a proposal for src/, not a fork of it. Events over the
 * inline limit are out of scope (the bench's are 500 bytes).
 */
import {
  canonical,
  chainDigest,
  type Event,
  type EventDraft,
  eventCallId,
  eventKind,
  INLINE_EVENT_LIMIT,
} from "../src/log";
import type { SqlLike } from "../src/storage";

export class ProtoStore {
  #head: { highWater: number; headDigest: string } | null = null;

  /**
   * `serializeOnce: false` is today's algorithm (the control): `#externalize` serializes
   * the event to check its size, then `append` serializes it again for the body.
   * `serializeOnce: true` is the proposal: the body doubles as the size check.
   */
  constructor(
    private readonly sql: SqlLike,
    private readonly sessionId: string,
    private readonly transactionSync: <T>(fn: () => T) => T,
    private readonly serializeOnce: boolean,
  ) {}

  head() {
    if (this.#head) return this.#head;
    const row = this.sql
      .exec<{ seq: number; digest: string }>("SELECT seq, digest FROM events ORDER BY seq DESC LIMIT 1")
      .toArray()[0];
    this.#head = row ? { highWater: row.seq, headDigest: row.digest } : { highWater: 0, headDigest: "0".repeat(64) };
    return this.#head;
  }

  append(drafts: EventDraft[], also?: (events: Event[]) => void): Event[] {
    return this.transactionSync(() => {
      let { highWater, headDigest } = this.head();
      const out: Event[] = [];
      const at = new Date().toISOString();
      for (const draft of drafts) {
        const seq = highWater + 1;
        const event = { ...draft, seq, sessionId: this.sessionId, at: draft.at ?? at };
        let body: string;
        if (this.serializeOnce) {
          body = canonical(event);
          if (body.length > INLINE_EVENT_LIMIT) throw new Error("proto: events over the inline limit are out of scope");
        } else {
          if (canonical(event).length > INLINE_EVENT_LIMIT) throw new Error("proto: out of scope");
          body = canonical(event);
        }
        const digest = chainDigest(headDigest, body);
        this.sql.exec(
          "INSERT INTO events (seq, turn_id, author, visibility, kind, call_id, body, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          seq,
          event.turnId ?? null,
          event.author,
          event.modelVisibility,
          eventKind(event),
          eventCallId(event),
          body,
          digest,
        );
        highWater = seq;
        headDigest = digest;
        out.push({ ...event, digest } as Event);
      }
      also?.(out);
      this.#head = { highWater, headDigest };
      return out;
    });
  }
}
