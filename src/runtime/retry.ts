/**
 * Provider failures as attempts (docs/API.md §7.8): which code an attempt failed with, whether the
 * runtime tries again, when, and what message the log may hold. Pure; the clock is passed in.
 */
import { ProviderError, type ProviderFailureCode } from "../model/types";

/** Every knob of the loop's timing, in one object so tests can set the waits to 0. */
export type RuntimePolicy = {
  /** Retries after the first attempt (docs/API.md §7.8: at most 4). */
  maxRetries: number;
  /** Wait before retry n (1-based) is `backoffMs[n-1]`. */
  backoffMs: number[];
  /** A provider's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
  /** A stream with no chunk for this long is a failed attempt (`idle_timeout`). */
  idleTimeoutMs: number;
  /** docs/API.md §7.14: no model call starts after this much of a slice, no tool after `toolStartMs`. */
  modelStartMs: number;
  toolStartMs: number;
  /** A stream still running this far into the slice is cut (`too_long`, not retried). */
  streamCutMs: number;
  /** Continuations after one answer cut at `length` (docs/API.md §7.10). */
  maxContinuations: number;
  /** Failed slices from one head before the turn fails (docs/API.md §7.13). */
  poisonSlices: number;
  /** Wait after failed slice n (1-based). */
  sliceBackoffMs: number[];
  /** The dead-man alarm: how long after a step a dead loop is picked up again. */
  leaseMs: number;
  /** A slice yields (alarm now) after this many steps. */
  sliceSteps: number;
  toolTimeoutMs: number;
};

export const DEFAULT_POLICY: RuntimePolicy = {
  maxRetries: 4,
  backoffMs: [1000, 2000, 4000, 8000],
  maxRetryAfterMs: 60_000,
  idleTimeoutMs: 120_000,
  modelStartMs: 8 * 60_000,
  toolStartMs: 13 * 60_000,
  streamCutMs: 12 * 60_000,
  maxContinuations: 3,
  poisonSlices: 5,
  sliceBackoffMs: [2000, 4000, 8000, 16_000],
  leaseMs: 3_000,
  sliceSteps: 40,
  toolTimeoutMs: 60_000,
};

export type AttemptCode = ProviderFailureCode;

/** One failed attempt, classified. */
export type AttemptFailure = { code: AttemptCode; message: string; retryable: boolean; retryAfterMs?: number };

/** A provider failure → its attempt code and retry verdict; anything else is our bug and is rethrown. */
export function classifyFailure(err: unknown): AttemptFailure {
  if (!(err instanceof ProviderError)) throw err;
  return {
    code: err.attemptCode,
    message: err.message,
    retryable: err.retryable,
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
  };
}

/** When the retry after failed attempt `attempt` (1-based) may start, or null when there is none. */
export function retryAt(failure: AttemptFailure, attempt: number, now: number, policy: RuntimePolicy): number | null {
  if (!failure.retryable || attempt > policy.maxRetries) return null;
  const base = policy.backoffMs[attempt - 1] ?? policy.backoffMs.at(-1) ?? 0;
  const wait = failure.retryAfterMs !== undefined ? Math.min(failure.retryAfterMs, policy.maxRetryAfterMs) : base;
  return now + wait;
}

/** The wait after `failures` consecutive failed slices (docs/API.md §7.13: 2, 4, 8, 16 s). */
export function sliceBackoff(failures: number, policy: RuntimePolicy): number {
  if (failures <= 0) return 0;
  return policy.sliceBackoffMs[failures - 1] ?? 0;
}

const MAX_MESSAGE = 500;

/** docs/API.md §7.8: at most 500 characters, configured keys and `sk-…`/`Bearer …` redacted. */
export function redactMessage(message: string, secrets: readonly string[] = []): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  out = out.replace(/\bsk-[A-Za-z0-9_-]+/g, "sk-[redacted]").replace(/\bBearer\s+[^\s"',;]+/gi, "Bearer [redacted]");
  return out.length <= MAX_MESSAGE ? out : `${out.slice(0, MAX_MESSAGE - 1)}…`;
}
