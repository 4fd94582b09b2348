/**
 * The object's one alarm (docs/design.md#where-things-live): what the runtime remembers about it
 * (the running slice's lease, what the last slice asked for when it ended, the outbox's retry),
 * the due times gathered from every part and handed to the pure `nextAlarm`, and the only calls
 * of `setAlarm`/`deleteAlarm`. All memory: after a restart the stored alarm stands for it (`adopt`).
 */

import { hasChildrenWork, remotePollDelay, type SessionSummary, waitsForInput } from "../projections";
import { type AlarmDues, dueFloors, type Firing, loopDue, nextAlarm, outboxDue } from "./alarm";
import { outboxDelay } from "./children";
import type { RuntimeDeps } from "./deps";
import type { RuntimeFeature } from "./feature";
import { featuresDue } from "./feature-hooks";

/** What the owner reads and writes: the summary as last committed, the clock, the dues' sources and the alarm. */
export type AlarmPort = {
  readonly summary: SessionSummary | null;
  readonly features: readonly RuntimeFeature[];
  readonly deps: Pick<RuntimeDeps, "sql" | "traceExportDue" | "setAlarm" | "deleteAlarm">;
  now(): number;
};

/** A lease moved by less than this is not written again (`lease`). */
const LEASE_SLACK_MS = 250;

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
  /** The alarm time the last `arm` wrote (null: none, or the platform fired it). */
  #armed: number | null = null;
  /** The remote task the open turn waits for: polls so far and when the next is due (docs/design.md#remote-calls). */
  #remote: { waitId: string; polls: number; at: number } | null = null;
  /** The answer (its seq) last tried on a task that asked: tried again at the poll's pace, not at once. */
  #answered: number | null = null;

  constructor(private readonly port: AlarmPort) {}

  /** The due time of everything the object owes a wake-up for. */
  dues(): AlarmDues {
    const { port } = this;
    const s = port.summary;
    const now = port.now();
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
      trigger: featuresDue(port.deps.sql, port.features, s, now),
      outbox: outboxDue(hasChildrenWork(s?.children), this.#outboxAt, now),
      traceExport: port.deps.traceExportDue?.() ?? null,
      remote: this.remoteDue(s, now),
    };
  }

  /** When the remote task the open turn waits for is next polled: now for a wait not polled yet. */
  remoteDue(s: SessionSummary | null, now: number): number | null {
    const wait = s?.openTurn?.wait;
    if (wait?.kind !== "remote") return null;
    // An answer to the task's question (a message, or an MCP task's own question's) is sent at once.
    const record = s?.remote?.waiting.find((r) => r.waitId === wait.waitId);
    const answerSeq = record?.answerSeq ?? record?.question?.answerSeq;
    if (answerSeq !== undefined && this.#answered !== answerSeq) return now;
    const at = this.#remote?.waitId === wait.waitId ? this.#remote.at : now;
    // A task with a deadline is looked at when it passes, whatever the backoff.
    return record?.deadline !== undefined ? Math.min(at, Math.max(record.deadline, now)) : at;
  }

  /** A poll of wait `waitId` is about to be asked: the next after the backoff of the polls so far. */
  remotePolled(waitId: string, now: number, answerSeq?: number): void {
    if (answerSeq !== undefined) this.#answered = answerSeq;
    const polls = this.#remote?.waitId === waitId ? this.#remote.polls + 1 : 1;
    this.#remote = { waitId, polls, at: now + remotePollDelay(polls) };
  }

  /**
   * The only writer of the object's alarm: the earliest of `dues()` past its floor, or none. Every
   * part that changes what is owed calls it, so no writer can drop another part's wake-up.
   */
  arm(): Promise<void> {
    const now = this.port.now();
    const floors = dueFloors(this.#fired, this.port.summary?.highWater ?? 0, now);
    const at = nextAlarm(this.dues(), now, floors);
    this.#armed = at;
    return at === null ? this.port.deps.deleteAlarm() : this.port.deps.setAlarm(at);
  }

  /** The platform fired the alarm: nothing is due again within the floor of this firing. */
  fired(): void {
    this.#armed = null;
    this.#fired = { at: this.port.now(), head: this.port.summary?.highWater ?? 0 };
  }

  /**
   * The running slice holds the loop until `at` (the dead-man switch). A lease that is the alarm as
   * written and would move by less than LEASE_SLACK_MS stays where it is: a slice of fast steps
   * writes its alarm once, not once a step (the lease is then at most that much shorter).
   */
  lease(at: number): Promise<void> {
    const held = this.#lease;
    if (held !== null && this.#armed === held && at >= held && at - held < LEASE_SLACK_MS) return Promise.resolve();
    this.#lease = at;
    return this.arm();
  }

  /** No slice runs any more: its lease is gone. */
  release(): void {
    this.#lease = null;
  }

  /** The slice ended: the next is due at `wake`, or, parked, once a command moves the turn. */
  endSlice(wake: number | "parked"): Promise<void> {
    const turnId = this.port.summary?.openTurn?.turnId ?? null;
    this.#lease = null;
    this.#wake = turnId ? { turnId, at: wake } : null;
    return this.arm();
  }

  /** A slice starts: it decides afresh, whatever the last one asked for. */
  startSlice(): void {
    this.#wake = null;
  }

  /** A command moved the turn: a parked loop is due again (a retry or backoff time is kept). */
  kick(): Promise<void> {
    if (this.#wake?.at === "parked") this.#wake = null;
    return this.arm();
  }

  /**
   * After a restart: the stored alarm is what the last incarnation owed (a retry, a backoff, a
   * lease, the outbox), so it is kept; an open, runnable turn without one is due now.
   */
  async adopt(getAlarm: () => Promise<number | null>): Promise<void> {
    const stored = await getAlarm();
    const s = this.port.summary;
    if (stored !== null) {
      const turn = s?.openTurn;
      if (turn && !this.#wake && this.#lease === null) this.#wake = { turnId: turn.turnId, at: stored };
      if (this.#outboxAt === null && hasChildrenWork(s?.children)) this.#outboxAt = stored;
      const wait = turn?.wait;
      if (!this.#remote && wait?.kind === "remote") this.#remote = { waitId: wait.waitId, polls: 0, at: stored };
    }
    await this.arm();
  }

  /** A delivery is about to be tried: its retry is due after the backoff of the failures so far. */
  outboxAttempt(): void {
    this.#outboxAt = this.port.now() + outboxDelay(this.#outboxFailures + 1);
  }

  outboxDone(delivered: boolean): void {
    if (delivered) {
      this.#outboxFailures = 0;
      this.#outboxAt = null;
    } else this.#outboxFailures++;
  }
}
