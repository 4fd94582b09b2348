import { tokensForChars } from "../projections";

/**
 * The input-token threshold for window W with `maxOut` tokens reserved for output:
 * min(floor(0.9·W), W − maxOut − min(ceil(0.02·W), 1000)) (docs/design.md §6).
 */
export function computeThreshold(contextWindow: number, maxOutputTokens: number): number {
  const safety = Math.min(Math.ceil(0.02 * contextWindow), 1000);
  return Math.min(Math.floor(0.9 * contextWindow), contextWindow - maxOutputTokens - safety);
}

/** Sessions whose threshold would fall below this are refused (docs/API.md §2). */
export const MIN_THRESHOLD = 1000;

/** docs/API.md §1: the output reservation when none is configured. */
export function defaultMaxOutputTokens(contextWindow: number): number {
  return Math.min(8192, Math.floor(contextWindow / 4));
}

/**
 * The estimate for the next request: the provider's reported input tokens for the prefix
 * it last saw, plus ~chars/4 for everything appended since. With no report yet, chars/4
 * of the whole request. Cumulative usage is never used.
 */
export function estimateRequestTokens(input: {
  reportedInputTokens: number | null;
  charsSinceReport: number;
  charsWhole: number;
}): number {
  if (input.reportedInputTokens === null) return tokensForChars(input.charsWhole);
  return input.reportedInputTokens + tokensForChars(input.charsSinceReport);
}
