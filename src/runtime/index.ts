/** The runtime's public surface: the session runtime, its pure core and the policy it runs under. */

export { type AlarmDues, type LoopView, loopDue, nextAlarm, outboxDue } from "./alarm";
export * from "./close-drafts";
export { REQUEST_ID } from "./commands";
export type { DeltaFrame, RuntimeConfig, RuntimeDeps } from "./deps";
export * from "./drafts";
export { ApiError, asResult, ERROR_STATUS, type ErrorCode, ok, type Result } from "./errors";
export { type FailpointEnv, type FailpointId, failpoint, haltedAtFailpoint, hang } from "./failpoints";
export { INPUT_ID, inputKnown } from "./inputs";
export { isWork, type ModelCall, type PlanPolicy, planNextStep, type SliceHead, type Step } from "./plan";
export {
  type AttemptCode,
  type AttemptFailure,
  classifyFailure,
  DEFAULT_POLICY,
  type RuntimePolicy,
  redactMessage,
  retryAt,
  sliceBackoff,
} from "./retry";
export { LEASE_MS, SessionRuntime } from "./session-runtime";
export { approvalKnown } from "./state";
export { BASE_SYSTEM_PROMPT, systemPrompt } from "./system-prompt";
export {
  beginWaitDraft,
  budgetWaitDraft,
  RESUME_SOURCE,
  resumeDrafts,
  WAIT_TOOLS,
  type WaitHead,
  waitHeadOf,
} from "./wait-drafts";
