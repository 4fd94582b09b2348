export { computeThreshold, defaultMaxOutputTokens, estimateRequestTokens, MIN_THRESHOLD } from "./budget";
