export { computeThreshold, defaultMaxOutputTokens, estimateRequestTokens, MIN_THRESHOLD } from "./budget";
export {
  buildNextContext,
  type CheckpointView,
  type ContextDeps,
  type ContextInput,
  type NextContext,
  type PrepareDeps,
  prepareContext,
} from "./next-context";
