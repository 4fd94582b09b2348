import { type Event, isBlobRef } from "../log";
import { type OffloadMark, offloadOf, placeholderFor, tokensForChars } from "../projections";
import { serializeToolResponse, utf8ByteLength } from "../tools";

/** Results over this size that are older than the last few become placeholders at a compaction (docs/design.md §6). */
export const OLDER_RESULT_PLACEHOLDER_BYTES = 4096;
/** The most recent tool results, which stay raw at an ordinary compaction. */
export const RECENT_RAW_RESULTS = 3;
/** When even the working set does not fit, every result over this size becomes a placeholder. */
export const FORCED_PLACEHOLDER_BYTES = 1024;
/** Tokens a message adds beyond its content (role, structure): a deliberate over-estimate. */
const MESSAGE_OVERHEAD_TOKENS = 8;

/**
 * Indexes `i` at which a raw tail may start (`events[i..]` stay raw, `events[..i-1]` are
 * summarised), for visible events after the current checkpoint, ascending. A tail never
 * starts inside a model answer, and no call before it is answered after it: the waterline
 * never splits a call from its response. Index 0 and `events.length` are not listed.
 */
export function tailStarts(events: Event[]): number[] {
  const out: number[] = [];
  const pending = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const c = e.content;
    if (i > 0 && pending.size === 0 && c) {
      const prev = events[i - 1]!;
      const userInput = e.author === "user" && c.type === "text";
      const newAnswer =
        e.author === "model" &&
        (c.type === "text" || c.type === "thinking" || c.type === "functionCall") &&
        !(prev.author === "model" && prev.invocationId === e.invocationId);
      if (userInput || newAnswer) out.push(i);
    }
    if (c?.type === "functionCall" && e.author === "model") pending.add(c.callId);
    else if (c?.type === "functionResponse") pending.delete(c.callId);
  }
  return out;
}

/** The UTF-8 size of a tool response as it would be archived (a `$blob` stands for its stored bytes). */
export function responseBytes(response: unknown): number {
  if (isBlobRef(response)) return response.$blob.bytes;
  return utf8ByteLength(serializeToolResponse(response));
}

/**
 * Approximate tokens an event adds to a request (~chars/4 of what the model is shown, with
 * `marks` applied to tool results), used to place the waterline. The context built after the
 * compaction is estimated again as a whole, so this only needs to be close.
 */
export function eventCost(e: Event, marks: ReadonlyMap<string, OffloadMark>): number {
  const c = e.content;
  if (!c || e.modelVisibility !== "visible") return 0;
  let shown: unknown = c;
  if (c.type === "functionResponse") {
    const mark = offloadOf(e) ?? marks.get(c.callId);
    shown = { ...c, response: mark ? placeholderFor(c.name, mark) : c.response };
  }
  return tokensForChars(JSON.stringify(shown).length) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * Tool results that become placeholders at this compaction: responses over `minBytes`, not
 * offloaded already, and (unless `keepRecent` is 0) older than the last `keepRecent` results.
 * Returns their indexes in `events`.
 */
export function placeholderCandidates(
  events: Event[],
  options: { minBytes: number; keepRecent: number; already: ReadonlySet<string> },
): number[] {
  const results: number[] = [];
  events.forEach((e, i) => {
    if (e.modelVisibility === "visible" && e.content?.type === "functionResponse") results.push(i);
  });
  const older = options.keepRecent > 0 ? results.slice(0, Math.max(0, results.length - options.keepRecent)) : results;
  return older.filter((i) => {
    const e = events[i]!;
    const c = e.content as Extract<Event["content"], { type: "functionResponse" }>;
    if (offloadOf(e) || options.already.has(c.callId)) return false;
    return responseBytes(c.response) > options.minBytes;
  });
}

export type WaterlineChoice = {
  /** First raw event: `events[index..]` stay raw. `events.length` means everything is summarised. */
  index: number;
  /** Tokens the raw tail is estimated to cost. */
  tailTokens: number;
};

/**
 * Picks where the raw tail starts. Among the allowed starts it keeps as much raw as fits in
 * `keepTokens` (the recent working set); when even the last unit is larger, it keeps just
 * that unit if it fits in `fitTokens`. Null when nothing fits: the caller escalates.
 */
export function selectWaterline(input: {
  costs: number[];
  starts: number[];
  keepTokens: number;
  fitTokens: number;
}): WaterlineChoice | null {
  const { costs, starts } = input;
  const tail = new Array<number>(costs.length + 1).fill(0);
  for (let i = costs.length - 1; i >= 0; i--) tail[i] = tail[i + 1]! + costs[i]!;
  const sorted = [...starts].sort((a, b) => a - b);
  for (const i of sorted) if (tail[i]! <= input.keepTokens) return { index: i, tailTokens: tail[i]! };
  const last = sorted.at(-1);
  if (last !== undefined && tail[last]! <= input.fitTokens) return { index: last, tailTokens: tail[last]! };
  return null;
}
