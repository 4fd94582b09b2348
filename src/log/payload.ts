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
  let left = INLINE_EVENT_LIMIT;
  const walk = (v: unknown): boolean => {
    if (typeof v === "string") {
      left -= v.length;
      return left < 0;
    }
    if (Array.isArray(v)) return v.some(walk);
    if (v && typeof v === "object") return Object.values(v).some(walk);
    return false;
  };
  return walk(payloadOf(e));
}
