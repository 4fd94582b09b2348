import type { Event } from "../contract/event";

/** An offloaded tool result, recorded on its functionResponse event as `actions.stateDelta.offload`. */
export type OffloadMark = { sha256: string; bytes: number; preview: string };

/** The offload mark of a functionResponse event, if its result was archived when it was committed. */
export function offloadOf(e: Pick<Event, "actions">): OffloadMark | null {
  const mark = e.actions?.stateDelta?.offload as OffloadMark | undefined;
  return mark && typeof mark.sha256 === "string" ? mark : null;
}

/** What the model sees in place of an archived result (docs/API.md §5). */
export function placeholderFor(tool: string, mark: OffloadMark) {
  return {
    offloaded: true as const,
    tool,
    bytes: mark.bytes,
    sha256: mark.sha256,
    ref: `archive://${mark.sha256}`,
    preview: mark.preview,
  };
}

/**
 * The model view of an event (docs/design.md §6 "Bounded in bytes"), or null when the model sees the event
 * as it is. An offloaded result's view holds its placeholder instead of the result, so a context
 * build never reads or parses the archived bytes; the event itself keeps the whole result
 * (docs/API.md §7.5). Everything a projection reads besides the response (ids, status, the offload
 * mark) is kept, so the messages built from the view equal those built from the event.
 */
export function modelViewOf<E extends Pick<Event, "content" | "actions">>(event: E): E | null {
  const c = event.content;
  if (c?.type !== "functionResponse") return null;
  const mark = offloadOf(event);
  if (!mark) return null;
  return { ...event, content: { ...c, response: placeholderFor(c.name, mark) } };
}
