/**
 * One model step, carried out: build (or rebuild) the request, record it, stream one attempt
 * with the idle and slice limits, then commit the answer, the failed attempt or the failure.
 */
import { assembleContext, ContextOverflowError, loadLatestCheckpoint, type NextContext } from "../context";
import { linkedSignal } from "../contract";
import { type ModelProvider, type ModelRequest, ProviderError } from "../model/types";
import type { OpenTurn } from "../projections";
import { failTurn } from "./commands";
import { prepareContext } from "./compaction";
import { CompactionDeferred, compactionSender } from "./compaction-calls";
import type { RuntimeCtx } from "./deps";
import {
  answerDrafts,
  continueDraft,
  type ModelAnswer,
  modelAttemptDraft,
  modelRequestDraft,
  requestDigest,
} from "./drafts";
import type { ModelCall } from "./plan";
import { type AttemptFailure, classifyFailure, redactMessage, retryAt } from "./retry";
import { iterateWithWatchdog, StreamCutError } from "./stream-watchdog";
import { attemptIsDurable } from "./under-way";

type AttemptOutcome =
  | { kind: "answer"; answer: ModelAnswer }
  | { kind: "failed"; failure: AttemptFailure }
  | { kind: "stopped" };

const digestOf = (ctx: NextContext) => requestDigest(ctx);

/** Carries out a `model` step. Returns false when the slice should end (closed, stopped, waiting). */
export async function runModelStep(rt: RuntimeCtx, call: ModelCall, sliceStartedAt: number): Promise<boolean> {
  const turn = rt.require().openTurn!;
  const base = { turnId: turn.turnId, runId: turn.runId };
  // A stop replaces the runtime's controller: this step answers to the one it started under.
  const signal = rt.signal;
  let provider: ModelProvider;
  try {
    provider = rt.deps.providerFor(turn.model);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    failTurn(rt, "model_failed", redact(rt, `model provider unavailable: ${err.message}`));
    return false;
  }
  let invocationId: string;
  let attempt: number;
  let built: NextContext;
  if (call.kind === "new") {
    if (call.continuation) rt.commit([continueDraft(base)]);
    // A turn decides its toolset and what features show once, before its first model call.
    if (turn.lastModelRequestSeq === null) {
      await rt.beforeTurn(base);
      if (!stillOpen(rt, turn, signal)) return false;
    }
    try {
      built = await prepareContext(
        {
          ...rt.deps,
          commit: (d) => rt.commit(d),
          provider,
          signal,
          base,
          send: compactionSender(rt, base, provider, rt.runState().compaction),
          failpoint: (id) => rt.failpoint(id),
        },
        rt.contextInput(turn.model),
      );
    } catch (err) {
      // The failed attempt is recorded with its retryAt: the planner ends the slice until then.
      if (err instanceof CompactionDeferred) return true;
      if (!(err instanceof ContextOverflowError)) throw err;
      failTurn(rt, "context_overflow", err.message);
      return false;
    }
    if (!stillOpen(rt, turn, signal)) return false;
    invocationId = crypto.randomUUID();
    attempt = 1;
    // The request, then (with no await between) what is under way: a slice of this incarnation that
    // dies before its attempt is recorded is never taken for a restart (./under-way.ts).
    rt.commit([modelRequestDraft({ ...base, invocationId }, recordOf(built))]);
    rt.underWay.start({ invocationId, attempt }, false);
    await rt.failpoint("F1");
  } else {
    // docs/API.md §3: a call issued again sends exactly the recorded request, rebuilt from the
    // prefix it was built on, so input that arrived meanwhile follows its answer; if that
    // cannot be had, what is sent is recorded first under the same invocation.
    invocationId = call.invocationId;
    attempt = call.attempt;
    const input = rt.contextInput(turn.model);
    const checkpoint = loadLatestCheckpoint(rt.deps, { repair: true }).checkpoint;
    built = assembleContext(rt.deps, input, checkpoint, call.recorded.throughSeq).ctx;
    if (digestOf(built) !== call.recorded.requestDigest) {
      // The same prefix no longer gives the same bytes (a deploy changed the prompt or tools):
      // send it anyway, so held input still follows the answer, and record it first.
      rt.commit([modelRequestDraft({ ...base, invocationId }, recordOf(built))]);
    }
  }
  const ids = { ...base, invocationId };
  const request: ModelRequest = { model: turn.model, messages: built.messages, tools: built.tools };
  rt.underWay.start({ invocationId, attempt }, attemptIsDurable(attempt));
  const outcome = await streamAttempt(rt, provider, request, { invocationId, attempt }, sliceStartedAt, signal);
  rt.underWay.end();
  rt.endAttempt();
  if (outcome.kind === "stopped" || !stillOpen(rt, turn, signal)) return false;
  if (outcome.kind === "answer") {
    const lengthStreak = rt.require().openTurn?.lengthStreak ?? 0;
    rt.commit(answerDrafts(outcome.answer, ids, { lengthStreak, maxContinuations: rt.policy.maxContinuations }));
    await rt.failpoint("F3");
    return true;
  }
  const failure = { ...outcome.failure, message: redact(rt, outcome.failure.message) };
  const at = retryAt(failure, attempt, rt.now(), rt.policy);
  if (at === null) {
    failTurn(
      rt,
      "model_failed",
      `the model call failed after ${attempt} attempt(s): ${failure.code}: ${failure.message}`,
    );
    return false;
  }
  rt.commit([modelAttemptDraft(ids, attempt, failure, at)]);
  return true;
}

function recordOf(ctx: NextContext) {
  return {
    throughSeq: ctx.throughSeq,
    checkpointId: ctx.checkpoint?.id ?? null,
    estimatedTokens: ctx.estimatedTokens,
    requestDigest: digestOf(ctx),
  };
}

function stillOpen(rt: RuntimeCtx, turn: OpenTurn, signal: AbortSignal): boolean {
  return !signal.aborted && rt.summary?.openTurn?.turnId === turn.turnId;
}

function redact(rt: RuntimeCtx, message: string): string {
  return redactMessage(message, rt.deps.config.secrets ?? []);
}

/**
 * Streams one attempt. Deltas go to the sockets tagged with the attempt; the answer is gathered
 * in memory. A stream with no part for `idleTimeoutMs`, one still running at `streamCutMs` into
 * the slice (both cut by `stream-watchdog.ts`), or one that ends without its finish is a failed
 * attempt; a non-provider error is a bug and is rethrown.
 */
async function streamAttempt(
  rt: RuntimeCtx,
  provider: ModelProvider,
  request: ModelRequest,
  tag: { invocationId: string; attempt: number },
  sliceStartedAt: number,
  stop: AbortSignal,
): Promise<AttemptOutcome> {
  // Unhooked from the session's stop signal once the stream is over (src/contract/deadline.ts).
  const linked = linkedSignal(stop);
  const answer: ModelAnswer = { text: "", thinking: "", calls: [], usage: null, finishReason: null };
  const parts = iterateWithWatchdog(provider.stream(request, linked.signal), {
    idleMs: rt.policy.idleTimeoutMs,
    deadlineAt: sliceStartedAt + rt.policy.streamCutMs,
    signal: stop,
    now: () => rt.now(),
  });
  let first = true;
  try {
    for await (const part of parts) {
      if (stop.aborted) return { kind: "stopped" };
      switch (part.type) {
        case "text-delta":
          answer.text += part.text;
          rt.delta({ ...tag, kind: "text", text: part.text });
          break;
        case "thinking-delta":
          answer.thinking += part.text;
          if (part.signature) answer.signature = part.signature;
          if (part.text) rt.delta({ ...tag, kind: "thinking", text: part.text });
          break;
        case "tool-call":
          answer.calls.push(part);
          break;
        case "usage":
          answer.usage = part;
          break;
        case "finish":
          answer.finishReason = part.reason;
          break;
      }
      if (first) {
        first = false;
        await rt.failpoint("F2");
      }
    }
  } catch (err) {
    if (stop.aborted) return { kind: "stopped" };
    if (!(err instanceof StreamCutError)) return { kind: "failed", failure: classifyFailure(err) };
    linked.controller.abort(new Error(err.cut === "idle" ? "idle" : "too_long"));
    return err.cut === "idle"
      ? {
          kind: "failed",
          failure: {
            code: "idle_timeout",
            message: `no stream chunk for ${rt.policy.idleTimeoutMs} ms`,
            retryable: true,
          },
        }
      : {
          kind: "failed",
          failure: {
            code: "too_long",
            message: "the stream was still running at the slice's time limit",
            retryable: false,
          },
        };
  } finally {
    linked.release();
  }
  if (stop.aborted) return { kind: "stopped" };
  // docs/API.md §7.9: a stream that ends without the provider's finish is a failed attempt.
  if (answer.finishReason === null)
    return {
      kind: "failed",
      failure: { code: "stream_cut", message: "the stream ended without a finish", retryable: true },
    };
  return { kind: "answer", answer };
}
