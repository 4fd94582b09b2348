/**
 * The open turn's suffix with a position kept (docs/design.md#principles, bounded): each read
 * takes only what was appended after the last one, so a slice's reads do not grow with the
 * events other parts append meanwhile (a trigger's firings while a turn waits for a human). Its
 * run state is kept the same way: the events read since are folded into it, so a step does not
 * project the whole suffix again.
 */
import type { Event, EventStore } from "../log";
import { foldRunState, projectRunState, type RunState } from "../projections";

const PAGE = 500;

export type OpenTurnRef = { turnId: string; startSeq: number; lastModelRequestSeq: number | null };

/** `state`: the run state of the first `count` of `events`, once asked for. */
type Held = {
  turnId: string;
  from: number;
  through: number;
  events: Event[];
  state: { count: number; value: RunState } | null;
};

export class TurnSuffix {
  #held: Held | null = null;

  /** The turn's events from its last model request (or its start), in order. */
  read(store: EventStore, turn: OpenTurnRef | null | undefined): Event[] {
    return this.#read(store, turn)?.events ?? [];
  }

  /** The run state of those events (`projectRunState` of `read`'s answer). */
  state(store: EventStore, turn: OpenTurnRef | null | undefined): RunState {
    const held = this.#read(store, turn);
    if (!held) return projectRunState([]);
    const { events, state } = held;
    const value = state ? foldRunState(state.value, events.slice(state.count)) : projectRunState(events);
    held.state = { count: events.length, value };
    return value;
  }

  #read(store: EventStore, turn: OpenTurnRef | null | undefined): Held | null {
    if (!turn) {
      this.#held = null;
      return null;
    }
    const from = turn.lastModelRequestSeq ?? turn.startSeq;
    let held = this.#held;
    if (!held || held.turnId !== turn.turnId || from < held.from)
      held = { turnId: turn.turnId, from, through: from - 1, events: [], state: null };
    else if (from > held.from) held = { ...held, from, events: held.events.filter((e) => e.seq >= from), state: null };
    // A list handed out is never changed: new events go into a copy (made once a read finds one).
    let events = held.events;
    let through = held.through;
    for (;;) {
      const page = store.readOwnAfter(through, PAGE);
      for (const e of page) {
        if (e.turnId === turn.turnId && e.seq >= from) {
          if (events === held.events) events = [...events];
          events.push(e);
        }
        through = e.seq;
      }
      if (page.length < PAGE) break;
    }
    if (held === this.#held && through === held.through) return held;
    this.#held = { ...held, through, events };
    return this.#held;
  }
}
