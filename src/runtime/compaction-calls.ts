/**
 * A compaction's model calls as facts of the log (docs/design.md#context, docs/API.md §7.29): each
 * call has its own `invocationId` and a hidden `modelRequest { purpose: "compaction" }` committed
 * before it is sent; a failed attempt appends `modelAttempt` and is retried by the alarm, never
 * by a sleep; after the last retry (or a failure no retry fixes) the summary is extracted instead.
 */
import { collectText, requestTokens, type SummaryAnswer } from "../context";
import { type ModelProvider, type ModelRequest, ProviderError } from "../model/types";
import type { PendingCompaction } from "../projections";
import type { RuntimeCtx } from "./deps";
import { type Base, modelAttemptDraft, modelRequestDraft, requestDigest } from "./drafts";
import { type AttemptFailure, classifyFailure, redactMessage, retryAt } from "./retry";
import { attemptIsDurable } from "./under-way";

/** A compaction attempt failed and is recorded: the slice ends and the alarm at `retryAt` retries it. */
export class CompactionDeferred extends Error {
  constructor(readonly retryAt: number) {
    super("the compaction call failed; it is retried from the alarm");
    this.name = "CompactionDeferred";
  }
}

/** What a compaction request is built from: the waterline and the checkpoint it extends. */
export type CompactionRecord = { throughSeq: number; checkpointId: string | null };

/**
 * The sender of one compaction's calls. The first call carries on `pending` (the call a failed
 * attempt or a restart left open: same invocation, next attempt, its request recorded again only
 * if what is sent differs); every later call is a new invocation.
 */
export function compactionSender(
  rt: RuntimeCtx,
  base: Base,
  provider: ModelProvider,
  pending: PendingCompaction | null,
): (request: ModelRequest, record: CompactionRecord) => Promise<SummaryAnswer> {
  let open = pending;
  return async function sendCompaction(request, record) {
    const invocationId = open?.invocationId ?? crypto.randomUUID();
    const attempt = open ? (open.attempts.at(-1)?.attempt ?? 0) + 1 : 1;
    const recorded = open?.requestDigest;
    open = null;
    const ids = { ...base, invocationId };
    const digest = requestDigest(request);
    if (digest !== recorded)
      rt.commit([
        modelRequestDraft(ids, {
          ...record,
          estimatedTokens: requestTokens(request),
          requestDigest: digest,
          purpose: "compaction",
        }),
      ]);
    rt.underWay.start({ invocationId, attempt }, attemptIsDurable(attempt));
    let answer: SummaryAnswer;
    try {
      answer = await collectText(provider, request, rt.signal);
    } catch (err) {
      rt.underWay.end();
      if (rt.signal.aborted) throw err;
      const failure = classifyCompactionFailure(err);
      const message = redactMessage(failure.message, rt.deps.config.secrets ?? []);
      const at = retryAt(failure, attempt, rt.now(), rt.policy);
      if (at === null)
        throw new ProviderError(
          `the compaction call failed after ${attempt} attempt(s): ${failure.code}: ${message}`,
          null,
          false,
        );
      rt.commit([modelAttemptDraft(ids, attempt, { code: failure.code, message }, at)]);
      throw new CompactionDeferred(at);
    }
    rt.underWay.end();
    return answer;
  };
}

/** A provider failure as an attempt; the summary call's own time limit is an idle timeout. */
function classifyCompactionFailure(err: unknown): AttemptFailure {
  if (err instanceof DOMException && err.name === "TimeoutError")
    return { code: "idle_timeout", message: "the compaction call timed out", retryable: true };
  return classifyFailure(err);
}
