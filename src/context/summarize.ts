import { deadline } from "../contract";
import type { Event } from "../log";
import { type ModelConfig, type ModelProvider, type ModelRequest, ProviderError } from "../model/types";
import { offloadOf, tokensForChars } from "../projections";
import { serializeToolResponse } from "../tools";
import { CHECKPOINT_SECTIONS, type PlaceholderMark, validateSummary } from "./checkpoint";

/** Per-event caps when events are rendered for the summariser; the log keeps every byte. */
const RENDER_LIMITS = { user: 65_536, model: 4000, thinking: 600, args: 1000, result: 1500 } as const;
/** More pieces than this and the summary is extracted deterministically instead. */
export const MAX_SUMMARY_PIECES = 12;
/** Attempts per piece (the first and two retries) before falling back to the extract. */
export const SUMMARY_ATTEMPTS = 3;
const SUMMARY_TIMEOUT_MS = 120_000;

function clip(text: string, max: number, seq: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… [${text.length - max} more characters in event seq ${seq}]`;
}

/**
 * One line (or block) per visible event, headed by its seq so the summary can cite it.
 * Offloaded results appear as their ref and preview; long payloads are cut with a pointer
 * to the event that holds them whole.
 */
export function renderEvents(
  events: Event[],
  placeholders: ReadonlyMap<string, PlaceholderMark> = new Map(),
): string[] {
  const out: string[] = [];
  for (const e of events) {
    const c = e.content;
    if (!c || e.modelVisibility !== "visible") continue;
    const head = `[seq ${e.seq}]`;
    if (e.author === "user" && c.type === "text")
      out.push(
        `${head} user${e.source && e.source !== "http" && e.source !== "ws" ? ` (${e.source})` : ""}: ${clip(c.text, RENDER_LIMITS.user, e.seq)}`,
      );
    else if (c.type === "text") out.push(`${head} assistant: ${clip(c.text, RENDER_LIMITS.model, e.seq)}`);
    else if (c.type === "thinking")
      out.push(`${head} assistant (thinking): ${clip(c.text, RENDER_LIMITS.thinking, e.seq)}`);
    else if (c.type === "functionCall")
      out.push(
        `${head} assistant calls ${c.name} (call ${c.callId}): ${clip(JSON.stringify(c.args ?? {}), RENDER_LIMITS.args, e.seq)}`,
      );
    else if (c.type === "functionResponse") {
      const mark = offloadOf(e) ?? placeholders.get(c.callId);
      const body = mark
        ? `offloaded ${mark.bytes} bytes, ref archive://${mark.sha256}, preview: ${mark.preview}`
        : clip(serializeToolResponse(c.response), RENDER_LIMITS.result, e.seq);
      out.push(`${head} ${c.name} result (call ${c.callId}, ${c.status}): ${body}`);
    }
  }
  return out;
}

/** Splits rendered lines into pieces of at most `maxChars` (JSON-escaped), cutting a line only when it alone is larger. */
export function splitPieces(lines: string[], maxChars: number): string[] {
  const size = (s: string) => JSON.stringify(s).length - 2;
  const pieces: string[] = [];
  let current: string[] = [];
  let used = 0;
  const flush = () => {
    if (current.length) pieces.push(current.join("\n"));
    current = [];
    used = 0;
  };
  for (const line of lines) {
    let rest = line;
    while (size(rest) + 1 > maxChars) {
      flush();
      // Escaping can only grow a string, so a cut at maxChars/escape-ratio characters fits.
      let n = maxChars;
      while (n > 1 && size(rest.slice(0, n)) > maxChars) n = Math.floor(n * 0.9);
      pieces.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    if (rest.length === 0) continue;
    if (used + size(rest) + 1 > maxChars) flush();
    current.push(rest);
    used += size(rest) + 1;
  }
  flush();
  return pieces;
}

/** The instructions of a compaction request: the system prompt of a call with no tools. */
export function summarySystemPrompt(maxChars: number): string {
  return [
    "You compact the history of an agent session into a continuation checkpoint. The agent continues its work from your summary plus the most recent events, and cannot see the events you summarise, so keep everything it needs. The full log stays available: cite event seq numbers ([seq N]) and archive:// refs where details can be found.",
    "Answer with the summary only, in Markdown, with exactly these five sections in this order, each starting with its heading line and none empty:",
    ...CHECKPOINT_SECTIONS.map((t) => `## ${t}`),
    `Keep the whole summary under ${maxChars} characters.`,
  ].join("\n");
}

/**
 * A compaction request (docs/API.md §1): no tools, and it ends with a user message that asks for
 * the summary. It merges the previous summary with one piece of new events.
 */
export function buildSummaryRequest(input: {
  model: ModelConfig;
  previous: string | null;
  piece: string;
  maxChars: number;
  /** Why the last answer was rejected, for a retry. */
  rejected?: string;
}): ModelRequest {
  const user = [
    "Previous summary:",
    input.previous ?? "(none: these are the first events of the session)",
    "",
    "New events since then:",
    input.piece,
    "",
    ...(input.rejected ? [`Your last answer could not be used: ${input.rejected}.`, ""] : []),
    "Write the updated summary now: one summary that merges the previous summary with the new events, in the five sections.",
  ].join("\n");
  return {
    model: input.model,
    messages: [
      { role: "system", content: summarySystemPrompt(input.maxChars) },
      { role: "user", content: user },
    ],
    tools: [],
  };
}

/** ~chars/4 of a request as sent (messages and tools): the same estimator as every other request. */
export function requestTokens(request: Pick<ModelRequest, "messages" | "tools">): number {
  return tokensForChars(JSON.stringify({ messages: request.messages, tools: request.tools }).length);
}

export type SummaryUsage = { inputTokens: number; outputTokens: number; cachedInputTokens?: number };

export type SummaryOutcome =
  | { ok: true; summary: string; usage: SummaryUsage }
  | { ok: false; reason: string; usage: SummaryUsage };

export type SummaryDeps = {
  provider: ModelProvider;
  signal: AbortSignal;
  /**
   * Sends one compaction request and gathers its answer (the runtime records the call in the log
   * first, docs/design.md#context); default: stream it from `provider`. A retryable failure is
   * not retried here: it is thrown on, for the caller to retry from the alarm.
   */
  send?: (request: ModelRequest) => Promise<SummaryAnswer>;
  /** Called with every compaction request before it is sent (tests record sizes). */
  onRequest?: (request: ModelRequest) => void;
};

export type SummaryAnswer = { text: string; usage: SummaryUsage | null };

function addUsage(a: SummaryUsage, b: SummaryUsage): SummaryUsage {
  const cached = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cached ? { cachedInputTokens: cached } : {}),
  };
}

/**
 * Summarises `pieces` in turn, each merged into the running summary, asking again (at most
 * `SUMMARY_ATTEMPTS` times) when an answer does not validate. A call that fails for good gives a
 * failed outcome; a retryable failure is thrown on (never slept on here). Does not fall back itself.
 */
export async function summarisePieces(
  deps: SummaryDeps,
  input: { model: ModelConfig; previous: string | null; pieces: string[]; maxChars: number; budgetTokens: number },
): Promise<SummaryOutcome> {
  let running = input.previous;
  let usage: SummaryUsage = { inputTokens: 0, outputTokens: 0 };
  for (const piece of input.pieces) {
    let rejected: string | undefined;
    let done = false;
    for (let attempt = 0; attempt < SUMMARY_ATTEMPTS && !done; attempt++) {
      if (deps.signal.aborted) return { ok: false, reason: "aborted", usage };
      const request = buildSummaryRequest({
        model: input.model,
        previous: running,
        piece,
        maxChars: input.maxChars,
        rejected,
      });
      // Never send a request over budget, the compaction request included.
      if (requestTokens(request) > input.budgetTokens)
        return { ok: false, reason: `a summary request would need ${requestTokens(request)} tokens`, usage };
      deps.onRequest?.(request);
      try {
        const answer = await (deps.send ?? ((r) => collectText(deps.provider, r, deps.signal)))(request);
        if (answer.usage) usage = addUsage(usage, answer.usage);
        const check = validateSummary(answer.text, input.maxChars);
        if (check.ok) {
          running = check.summary;
          done = true;
        } else rejected = check.reason;
      } catch (err) {
        if (deps.signal.aborted) return { ok: false, reason: "aborted", usage };
        if (err instanceof ProviderError && !err.retryable)
          return { ok: false, reason: `summary call failed: ${err.message}`, usage };
        throw err;
      }
    }
    if (!done) return { ok: false, reason: rejected ?? "summary calls failed", usage };
  }
  if (running === null) return { ok: false, reason: "nothing to summarise", usage };
  return { ok: true, summary: running, usage };
}

/** Streams one compaction request and gathers its text and usage (compaction sends no deltas). */
export async function collectText(
  provider: ModelProvider,
  request: ModelRequest,
  outer: AbortSignal,
): Promise<SummaryAnswer> {
  const limit = deadline(SUMMARY_TIMEOUT_MS, outer);
  let text = "";
  let usage: SummaryUsage | null = null;
  try {
    for await (const part of provider.stream(request, limit.signal)) {
      if (part.type === "text-delta") text += part.text;
      else if (part.type === "usage")
        usage = {
          inputTokens: part.inputTokens,
          outputTokens: part.outputTokens,
          ...(part.cachedInputTokens !== undefined ? { cachedInputTokens: part.cachedInputTokens } : {}),
        };
    }
  } finally {
    limit.clear();
  }
  return { text, usage };
}
