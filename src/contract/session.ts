/** The `Session` resource and what it is created with (docs/API.md). */
import type { MemoryMode } from "./memory";
import type { ModelConfig } from "./model";

/** The location hints a session may ask for; anything else is 400. */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
/** The jurisdictions a session object may be created in, and never leave (Cloudflare added `us` in 2026). */
export const JURISDICTIONS = ["eu", "fedramp", "us"] as const;

/** Approval request ids are minted by the runtime: `apr_` and 24 lowercase hex characters. */
export const REQUEST_ID = /^apr_[0-9a-f]{24}$/;

/** An approval rule: calls of `tool` whose args match (every key, any listed value) wait for a human. */
export type ApprovalRule = { tool: string; match?: Record<string, string[]> };

/** What `POST /v1/sessions` takes, and what seq 1 records. */
export type SessionOptions = {
  title?: string;
  system?: string;
  model?: Partial<ModelConfig>;
  tools?: string[];
  /** docs/API.md#skills: the skills the session is shown (default all); names of `SKILL_NAME`. */
  skills?: string[];
  approvals?: ApprovalRule[];
  offloadThresholdBytes?: number;
  locationHint?: string;
  /** The step budget, 1–100000; default 1000. */
  maxModelCallsPerTurn?: number;
  jurisdiction?: string;
  /** docs/API.md#memory: default `read-write`; `read` has `recall` only; a child inherits its parent's. */
  memory?: MemoryMode;
};

export type SessionStatus =
  | "idle"
  | "running"
  | "waiting_approval"
  | "waiting_input"
  | "waiting"
  | "recovering"
  | "failed";
export type CloseReason = "completed" | "stopped" | "failed";

/** `argsDigest` is recorded with the request; older requests lack it. */
export type PendingApproval = { requestId: string; callId: string; tool: string; args: unknown; argsDigest?: string };
/**
 * A question a tool's server asks a person during a call (docs/API.md#questions-from-mcp-servers):
 * a form (`schema`, a flat JSON schema) or a URL to open (`url`). `stream`: asked over the open
 * stream of a 2025-11-25 server (it ends with the call, or with the object).
 */
export type PendingInput = {
  requestId: string;
  callId: string;
  server: string;
  message: string;
  schema?: Record<string, unknown>;
  url?: string;
  stream?: true;
};
/** `POST /v1/sessions/:id/inputs/:requestId`. */
export type InputAnswer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

/** Which calls were re-run, which need review, which model calls were re-issued. */
export type RecoveryNotice = { atSeq: number; rerun: string[]; needsReview: string[]; reissued: string[] };

export type WaitKind = "wait_for" | "budget" | "child" | "remote";
/** `Session.wait`: what the open turn waits for. */
export type SessionWait = { runId: string; waitId: string; kind: WaitKind; reason?: string; modelCalls?: number };

export type Usage = { inputTokens: number; outputTokens: number; cachedInputTokens: number };
export type ForkedFrom = { sessionId: string; throughSeq: number; digest: string };

/** The public `Session`. */
export type Session = {
  id: string;
  title: string | null;
  parentId: string | null;
  status: SessionStatus;
  openTurn: boolean;
  highWater: number;
  headDigest: string;
  model: ModelConfig;
  pendingApprovals: (PendingApproval & { argsDigest: string })[];
  /** Questions of a tool's server waiting for a person's answer (docs/API.md#questions-from-mcp-servers). */
  pendingInputs: PendingInput[];
  recoveryNotice: RecoveryNotice | null;
  usage: Usage;
  maxModelCallsPerTurn: number;
  wait: SessionWait | null;
  /** Where the session lives, as recorded in seq 1. */
  placement: { locationHint: string | null; jurisdiction: string | null };
  /** Fork lineage: the parent and the seq this session was forked at, else null. */
  forkedFrom: ForkedFrom | null;
  createdAt: string;
  updatedAt: string;
  /** A channel-born session's thread (docs/API.md#channels); absent otherwise. */
  channel?: SessionChannel;
};

/** The platform thread a channel-born session answers in. */
export type SessionChannel = { name: string; kind: "slack" | "telegram"; thread: string; link: string | null };

/** `PATCH /v1/sessions/:id`. */
export type SessionPatch = { title?: string | null; model?: Partial<ModelConfig>; maxModelCallsPerTurn?: number };
/** `POST /approvals/:requestId`. */
export type DecisionBody = { decision: "approve" | "reject"; reason?: string; argsDigest?: string };
/** `POST /recovery-notice/dismiss`. */
export type DismissBody = { atSeq: number };
