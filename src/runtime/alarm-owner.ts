/**
 * What the runtime remembers about the object's one alarm (docs/design.md#where-things-live):
 * the running slice's lease, what the last slice asked for when it ended, and the outbox's
 * retry. All memory: after a restart the stored alarm stands for them (`adopt`). The due times
 * are gathered here and handed to the pure `nextAlarm`.
 */

import { hasChildrenWork, type SessionSummary, waitsForInput } from "../projections";
import type { SqlLike } from "../storage";
import { type AlarmDues, dueFloors, type Firing, loopDue, outboxDue } from "./alarm";
import { outboxDelay } from "./children";
import type { RuntimeFeature } from "./feature";
import { featuresDue } from "./feature-hooks";

export class AlarmOwner {
  /** The running slice's lease: if this isolate dies, the alarm brings the loop back then. */
  #lease: number | null = null;
  /** What the open turn's last slice asked for when it ended: a time, or parked until a command. */
  #wake: { turnId: string; at: number | "parked" } | null = null;
  /** When the outbox is next tried, and how many deliveries failed in a row. */
  #outboxAt: number | null = null;
  #outboxFailures = 0;
  /** The alarm's last firing: no part is due again within the floor of it (`dueFloors`). */
  #fired: Firing | null = null;

  /** The alarm fired at `now`, with the log's head at `head`. */
  fired(now: number, head: number): void {
    this.#fired = { at: now, head };
  }

  /** The earliest each part may be due now. */
  floors(head: number, now: number): Record<keyof AlarmDues, number> {
    return dueFloors(this.#fired, head, now);
  }

  /** The due time of everything the object owes a wake-up for. */
  dues(s: SessionSummary | null, sql: SqlLike, now: number, features: readonly RuntimeFeature[]): AlarmDues {
    const turn = s?.openTurn ?? null;
    const blocked = !!s && (s.pendingApprovals.length > 0 || waitsForInput(s) || !!turn?.wait);
    const loop = loopDue(
      {
        turn: !turn ? "none" : blocked ? "blocked" : "runnable",
        lease: turn ? this.#lease : null,
        wake: turn && this.#wake?.turnId === turn.turnId ? this.#wake.at : null,
      },
      now,
    );
    return {
      loop,
      trigger: featuresDue(sql, features, s, now),
      outbox: outboxDue(hasChildrenWork(s?.children), this.#outboxAt, now),
    };
  }

  /** The running slice holds the loop until `at`; null when no slice runs. */
  lease(at: number | null): void {
    this.#lease = at;
  }

  /** The slice ended: the next is due at `wake`, or, parked, once a command moves the turn. */
  endSlice(turnId: string | null, wake: number | "parked"): void {
    this.#lease = null;
    this.#wake = turnId ? { turnId, at: wake } : null;
  }

  /** A slice starts: it decides afresh, whatever the last one asked for. */
  startSlice(): void {
    this.#wake = null;
  }

  /** A command moved the turn: a parked loop is due again (a retry or backoff time is kept). */
  kick(): void {
    if (this.#wake?.at === "parked") this.#wake = null;
  }

  /** After a restart: the stored alarm is what the last incarnation owed, so it is kept. */
  adopt(stored: number | null, s: SessionSummary | null): void {
    if (stored === null) return;
    const turn = s?.openTurn;
    if (turn && !this.#wake && this.#lease === null) this.#wake = { turnId: turn.turnId, at: stored };
    if (this.#outboxAt === null && hasChildrenWork(s?.children)) this.#outboxAt = stored;
  }

  /** A delivery is about to be tried: its retry is due after the backoff of the failures so far. */
  outboxAttempt(now: number): void {
    this.#outboxAt = now + outboxDelay(this.#outboxFailures + 1);
  }

  outboxDone(delivered: boolean): void {
    if (delivered) {
      this.#outboxFailures = 0;
      this.#outboxAt = null;
    } else this.#outboxFailures++;
  }
}
