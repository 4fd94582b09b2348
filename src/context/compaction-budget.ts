/**
 * How a model's threshold is shared after a compaction (docs/API.md#compaction): the fixed parts
 * of every request, the summary, the raw working set and the room left to grow. Pure.
 */
import { CHARS_PER_TOKEN } from "../projections";

/** Share of what the system prompt and tools leave that a summary may take. */
const SUMMARY_SHARE = 0.25;
/** Share kept raw as the recent working set at an ordinary compaction. */
const WORKING_SET_SHARE = 0.35;
const MIN_SUMMARY_TOKENS = 150;
const MAX_SUMMARY_TOKENS = 4000;
/** Tokens of the checkpoint message's framing around the summary. */
export const CHECKPOINT_FRAMING_TOKENS = 30;
/** Escalation: 0 ordinary, 1 every result over 1 KiB becomes a placeholder, 2 everything summarised. */
export const COMPACTION_LEVELS = 3;

export type CompactionBudget = {
  /** Tokens of the parts every request has: system prompt, tools, checkpoint framing. */
  fixedTokens: number;
  /** The most a summary may take, in tokens and in characters (its validation bound). */
  summaryTokens: number;
  summaryMaxChars: number;
  /** The raw tail kept at an ordinary compaction. */
  keepTokens: number;
  /** The largest raw tail that still fits under the threshold beside the summary, with a 5% margin. */
  fitTokens: number;
};

/** How the threshold is shared after a compaction: fixed parts, summary, working set, room to grow. */
export function compactionBudget(input: {
  threshold: number;
  maxOutputTokens: number;
  fixedTokens: number;
}): CompactionBudget {
  const available = Math.max(0, input.threshold - input.fixedTokens);
  const summaryTokens = Math.max(
    MIN_SUMMARY_TOKENS,
    Math.min(Math.floor(available * SUMMARY_SHARE), MAX_SUMMARY_TOKENS, input.maxOutputTokens),
  );
  return {
    fixedTokens: input.fixedTokens,
    summaryTokens,
    summaryMaxChars: summaryTokens * CHARS_PER_TOKEN,
    keepTokens: Math.floor(available * WORKING_SET_SHARE),
    fitTokens: input.threshold - input.fixedTokens - summaryTokens - Math.ceil(0.05 * input.threshold),
  };
}
