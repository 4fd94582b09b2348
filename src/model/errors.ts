/**
 * Provider failures → `ProviderError` (docs/API.md §7.8 attempt codes, docs/design.md §4 retry verdicts)
 * and the SDK's finish reasons → the recorded ones (docs/API.md §7.9).
 */
import { APICallError, RetryError } from "ai";
import { type FinishReason, isRetryableStatus, ProviderError } from "./types";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Errors that no retry can fix: a missing key, a prompt the SDK cannot express. */
const NON_RETRYABLE_SDK_ERRORS = new Set([
  "AI_LoadAPIKeyError",
  "AI_LoadSettingError",
  "AI_InvalidPromptError",
  "AI_InvalidArgumentError",
  "AI_MessageConversionError",
  "AI_UnsupportedFunctionalityError",
]);

/** Error types a provider reports inside a stream (Anthropic `error` event, OpenAI `error` chunk) that retrying will not fix. */
const NON_RETRYABLE_STREAM_ERROR_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
]);

/** The SDK's finish reason → the recorded one; null when the stream did not really finish. */
export function toFinishReason(reason: unknown): FinishReason | null {
  switch (reason) {
    case "stop":
    case "length":
    case "tool-calls":
    case "content-filter":
    case "other":
      return reason;
    case "unknown":
      return "other";
    default:
      return null;
  }
}

/**
 * Any failure of a provider call → `ProviderError` with docs/design.md §4's retry decision and the
 * attempt code of docs/API.md §7.8. The SDK's own `isRetryable` verdict wins where it gives one.
 * An error that is not the provider's (a TypeError in our code) is returned as it is: it is a
 * bug, not a retryable provider failure.
 */
export function toProviderError(error: unknown, now: number = Date.now()): unknown {
  if (error instanceof ProviderError) return error;
  if (RetryError.isInstance(error)) return toProviderError(error.lastError, now);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode ?? null;
    const retryAfterMs = error.responseHeaders ? parseRetryAfterMs(error.responseHeaders, now) : undefined;
    // A 2xx here means the answer started and its body failed: the connection was lost mid-stream.
    const midStream = status !== null && status >= 200 && status < 300;
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    const message = midStream
      ? `the connection was lost mid-stream${cause}`
      : status === null
        ? `${error.message}${cause}`
        : `${status}: ${error.message}`;
    const retryable = midStream
      ? true
      : typeof error.isRetryable === "boolean"
        ? error.isRetryable
        : isRetryableStatus(status);
    return new ProviderError(message, midStream ? null : status, retryable, retryAfterMs, {
      cause: error,
      attemptCode: midStream ? "network" : status === null ? "network" : `http_${status}`,
    });
  }
  if (error instanceof Error && error.name === "AI_InvalidResponseDataError" && /finish/i.test(error.message)) {
    return new ProviderError(error.message, null, true, undefined, { cause: error, attemptCode: "stream_cut" });
  }
  if (error instanceof Error && error.name.startsWith("AI_")) {
    const verdict = (error as { isRetryable?: unknown }).isRetryable;
    const retryable = typeof verdict === "boolean" ? verdict : !NON_RETRYABLE_SDK_ERRORS.has(error.name);
    return new ProviderError(error.message, null, retryable, undefined, {
      cause: error,
      attemptCode: "provider_error",
    });
  }
  if (isNetworkError(error)) {
    return new ProviderError(`could not reach the model provider: ${networkCause(error)}`, null, true, undefined, {
      cause: error,
      attemptCode: "network",
    });
  }
  if (error instanceof Error) return error;
  if (isPlainObject(error)) {
    // A provider error reported inside the stream, e.g. { type: "overloaded_error", message }.
    const message = typeof error.message === "string" ? error.message : JSON.stringify(error);
    const status = typeof error.code === "number" ? error.code : null;
    const type = typeof error.type === "string" ? error.type : undefined;
    const retryable =
      type !== undefined && NON_RETRYABLE_STREAM_ERROR_TYPES.has(type) ? false : isRetryableStatus(status);
    return new ProviderError(type ? `${type}: ${message}` : message, status, retryable, undefined, {
      cause: error,
      attemptCode: "provider_error",
    });
  }
  return new ProviderError(String(error), null, false, undefined, { cause: error, attemptCode: "provider_error" });
}

/**
 * The platform's fetch failing to reach the provider, which the SDK passes through as it is:
 * workerd throws `Error("Network connection lost.")` marked `retryable`/`remote` for a refused
 * or dropped connection, Node a `TypeError("fetch failed")` whose cause holds the socket error.
 */
function isNetworkError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const marked = (error as { retryable?: unknown; remote?: unknown }).retryable === true;
  return (
    marked ||
    /network connection lost|fetch failed|connection (refused|reset|closed)|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN/i.test(
      `${error.message} ${error.cause instanceof Error ? error.cause.message : ""}`,
    )
  );
}

function networkCause(error: Error): string {
  const cause = error.cause instanceof Error ? error.cause.message : "";
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
}

/** `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date) → milliseconds. */
export function parseRetryAfterMs(
  headers: Record<string, string | undefined>,
  now: number = Date.now(),
): number | undefined {
  const lower: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers)) lower[key.toLowerCase()] = value;
  const ms = lower["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const raw = lower["retry-after"]?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
