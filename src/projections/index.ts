export {
  buildModelMessages,
  type ContextInput,
  estimateTokens,
  type OffloadMark,
  offloadOf,
  placeholderFor,
} from "./model-context";
export {
  buildRecoveryPlan,
  type CallPlan,
  type CallState,
  decideNextStep,
  INTERRUPTED_DIRECTIVE,
  type NextStep,
  planCall,
  projectRunState,
  type RecoveryPlan,
  type RunState,
} from "./run-state";
export {
  type CloseReason,
  deriveStatus,
  type OpenTurn,
  type PendingApproval,
  type RecoveryNotice,
  reduceSummary,
  type Session,
  type SessionCreated,
  type SessionOptions,
  type SessionStatus,
  type SessionSummary,
  toSession,
} from "./summary";
export { buildTranscript, pageTranscript, type TranscriptItem } from "./transcript";
