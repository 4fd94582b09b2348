import type { Event } from "../contract/event";

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
