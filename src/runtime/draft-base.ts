/** What every runtime draft carries: its turn and run, and the invocation it belongs to. */
import type { EventDraft } from "../contract/event";

export type Base = { turnId: string; runId: string };
export type Ids = Base & { invocationId?: string };

/** A runtime event the model does not see. */
export const hidden = (ids: Ids, rest: Pick<EventDraft, "actions" | "content">): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  ...ids,
  ...rest,
});
