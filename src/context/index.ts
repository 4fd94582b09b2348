export {
  computeThreshold,
  defaultMaxOutputTokens,
  estimateRequestTokens,
  MIN_THRESHOLD,
} from "./budget";
export {
  CHECKPOINT_SECTIONS,
  type CheckpointMethod,
  type CheckpointPayload,
  type CheckpointRecord,
  checkpointDraft,
  type LoadedCheckpoint,
  loadLatestCheckpoint,
  type PlaceholderMark,
  parseCheckpointPayload,
  parseSections,
  validateSummary,
  writeCheckpointRow,
} from "./checkpoint";
export { buildExtractSummary } from "./extract";
export {
  buildNextContext,
  type CheckpointView,
  type CompactionBudget,
  type ContextDeps,
  type ContextInput,
  ContextOverflowError,
  compactionBudget,
  estimateContextTokens,
  type NextContext,
  type PrepareDeps,
  prepareContext,
} from "./next-context";
export { buildSummaryRequest, renderEvents, requestTokens, splitPieces, summarySystemPrompt } from "./summarize";
export {
  eventCost,
  OLDER_RESULT_PLACEHOLDER_BYTES,
  placeholderCandidates,
  RECENT_RAW_RESULTS,
  responseBytes,
  selectWaterline,
  tailStarts,
} from "./waterline";
