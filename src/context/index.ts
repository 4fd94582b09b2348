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
  type Assembled,
  assembleContext,
  buildNextContext,
  type CheckpointView,
  COMPACTION_LEVELS,
  type CompactionBudget,
  type CompactionPlan,
  type ContextDeps,
  type ContextInput,
  ContextOverflowError,
  compactionBudget,
  estimateContextTokens,
  type NextContext,
  planCompaction,
} from "./next-context";
export {
  buildSummaryRequest,
  collectText,
  MAX_SUMMARY_PIECES,
  renderEvents,
  requestTokens,
  type SummaryAnswer,
  splitPieces,
  summarisePieces,
  summarySystemPrompt,
} from "./summarize";
export {
  eventCost,
  OLDER_RESULT_PLACEHOLDER_BYTES,
  placeholderCandidates,
  RECENT_RAW_RESULTS,
  responseBytes,
  selectWaterline,
  tailStarts,
} from "./waterline";
