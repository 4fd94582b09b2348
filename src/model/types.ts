/** The model port: provider-neutral requests in, streamed parts out. Adapters live beside this file. */

import type { ModelConfig, NeutralMessage, ProviderName, ToolSpec } from "../contract/model";

export {
  type AssistantPart,
  type ModelConfig,
  type NeutralMessage,
  PROVIDERS,
  type ProviderName,
  type ToolResultPart,
  type ToolSpec,
} from "../contract/model";

export type ModelRequest = {
  model: ModelConfig;
  /** The first message is the system prompt. */
  messages: NeutralMessage[];
  tools: ToolSpec[];
};

/** What a provider streams back. A tool call arrives complete (arguments already joined). */
export type ModelPart =
  | { type: "text-delta"; text: string }
  | { type: "thinking-delta"; text: string; signature?: string }
  | { type: "tool-call"; callId: string; name: string; args: unknown }
  | { type: "usage"; inputTokens: number; outputTokens: number; cachedInputTokens?: number }
  | { type: "finish"; reason: FinishReason };

/** docs/API.md §3: how an answer ended, as recorded in `stateDelta.finishReason`. */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "other";

export interface ModelProvider {
  readonly name: ProviderName;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart>;
}

/** Where and how to reach a provider (from Worker vars). */
export type ProviderSettings = {
  baseUrl?: string;
  apiKey?: string;
  /** Injected fetch (tests, failpoints); defaults to the global one. */
  fetch?: typeof fetch;
  /** The Workers AI binding (`env.AI`), for `workers-ai` only. */
  ai?: unknown;
};

/** How a failed attempt is recorded (docs/API.md §7.8 `modelAttempt.code`). */
export type ProviderFailureCode =
  | `http_${number}`
  | "network"
  | "idle_timeout"
  | "stream_cut"
  | "provider_error"
  | "restart"
  | "too_long";

/**
 * A provider failure. `retryable` follows docs/design.md §4: 408, 409, 429, 5xx, network errors and
 * streams cut before their finish are retried by the runtime; other 4xx fail at once; where
 * the SDK gives its own `isRetryable` verdict, that one. `attemptCode` is what the log records.
 */
export class ProviderError extends Error {
  readonly code = "provider_error";
  readonly attemptCode: ProviderFailureCode;
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; attemptCode?: ProviderFailureCode },
  ) {
    super(message, options);
    this.attemptCode = options?.attemptCode ?? (status !== null ? `http_${status}` : "network");
  }
}

/** docs/design.md §4: which HTTP statuses are worth retrying. */
export function isRetryableStatus(status: number | null): boolean {
  return status === null || status === 408 || status === 409 || status === 429 || status >= 500;
}
