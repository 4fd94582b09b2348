import type { Event } from "../contract/event";
import { type EventStore, parseRow } from "./store";

/**
 * Events after `after` in pages of `pageSize` (default 500), until `enough(page)` says so, the head is reached, or
 * `maxEvents` events or `maxBytes` of their JSON were read. `atHead` tells whether the read got there.
 */
export function readBoundedAfter(
  store: Pick<EventStore, "head" | "readRows">,
  after: number,
  bounds: { maxEvents: number; maxBytes: number; pageSize?: number; enough?: (page: Event[]) => boolean },
): { events: Event[]; atHead: boolean } {
  const highWater = store.head().highWater;
  const events: Event[] = [];
  let bytes = 0;
  let cursor = after;
  while (cursor < highWater && events.length < bounds.maxEvents && bytes <= bounds.maxBytes) {
    const rows = store.readRows(cursor, highWater, Math.min(bounds.pageSize ?? 500, bounds.maxEvents - events.length));
    if (rows.length === 0) break;
    const page = rows.map(parseRow);
    for (const r of rows) bytes += r.body.length;
    events.push(...page);
    cursor = rows[rows.length - 1]!.seq;
    if (bounds.enough?.(page)) break;
  }
  return { events, atHead: cursor >= highWater };
}
