/**
 * What this incarnation has under way: a model attempt or a tool run (docs/design.md#4-the-run-loop).
 *
 * Recovery asks two things of it (projections/recovery-plan.ts): whether the work was this
 * incarnation's own (`mine`: its slice failed, the object did not restart), which only memory can
 * say; and, after a restart, which attempt of a retried request or which re-run call died with
 * it, which the log cannot say. So the record lives in memory, and only a retry attempt (2 or
 * later) or a re-run is also written to the `inflight` row: a first attempt or a first run is
 * known from the log (a request without attempts, a dispatch after the last takeover), and its
 * row would be written and deleted on every step for nothing (docs/design.md#3-storage).
 */
import type { Inflight } from "../projections";
import type { SqlLike } from "../storage";
import { readInflight, writeInflight } from "./state";

export type UnderWayWork = { invocationId: string; attempt: number } | { callId: string };

export class UnderWay {
  #work: UnderWayWork | null = null;
  /** This incarnation wrote the row (so `end` deletes it). */
  #stored = false;
  /** Known to have no row (read once, or deleted since): `read` asks SQLite no more. */
  #noRow = false;

  constructor(
    private readonly sql: SqlLike,
    private readonly incarnation: string,
  ) {}

  /** Work starts: held in memory; written to the row too when a restart must know it (`durable`). */
  start(work: UnderWayWork, durable: boolean): void {
    this.#work = work;
    if (!durable) return;
    writeInflight(this.sql, work, this.incarnation);
    this.#stored = true;
    this.#noRow = false;
  }

  /** Whether `end` writes (a row this incarnation stored): a commit that joins it needs its transaction. */
  get stored(): boolean {
    return this.#stored;
  }

  /** The work ended (answered, failed, dropped): forgotten, and its row deleted if one was written. */
  end(): void {
    this.#work = null;
    if (!this.#stored) return;
    writeInflight(this.sql, null);
    this.#stored = false;
    // Read again next time: this delete may be part of a commit that does not hold.
    this.#noRow = false;
  }

  /** A recovery recorded what died: whatever row a past incarnation left is deleted with it. */
  cleared(): void {
    this.#work = null;
    this.#stored = false;
    writeInflight(this.sql, null);
    this.#noRow = false;
  }

  /** What the planner is told: this incarnation's own work, else the row a past one left. */
  read(): Inflight {
    if (this.#work) return { ...this.#work, mine: true };
    if (this.#noRow) return null;
    const row = readInflight(this.sql, this.incarnation);
    this.#noRow = row === null;
    return row;
  }
}

/** A model attempt: durable from its second attempt on (the first is known from the log). */
export function attemptIsDurable(attempt: number): boolean {
  return attempt > 1;
}
