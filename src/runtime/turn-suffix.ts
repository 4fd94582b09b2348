/**
 * The open turn's suffix with a position kept (docs/design.md#principles, bounded): each read
 * takes only what was appended after the last one, so a slice's reads do not grow with the
 * events other parts append meanwhile (a trigger's firings while a turn waits for a human).
 */
import type { Event, EventStore } from "../log";

const PAGE = 500;

export type OpenTurnRef = { turnId: string; startSeq: number; lastModelRequestSeq: number | null };

export class TurnSuffix {
  #held: { turnId: string; from: number; through: number; events: Event[] } | null = null;

  /** The turn's events from its last model request (or its start), in order. */
  read(store: EventStore, turn: OpenTurnRef | null | undefined): Event[] {
    if (!turn) {
      this.#held = null;
      return [];
    }
    const from = turn.lastModelRequestSeq ?? turn.startSeq;
    let held = this.#held;
    if (!held || held.turnId !== turn.turnId || from < held.from)
      held = { turnId: turn.turnId, from, through: from - 1, events: [] };
    else if (from > held.from) held = { ...held, from, events: held.events.filter((e) => e.seq >= from) };
    const events = [...held.events];
    let through = held.through;
    for (;;) {
      const page = store.readOwnAfter(through, PAGE);
      for (const e of page) {
        if (e.turnId === turn.turnId) events.push(e);
        through = e.seq;
      }
      if (page.length < PAGE) break;
    }
    this.#held = { turnId: turn.turnId, from, through, events };
    return events;
  }
}
