import { type Event, isBlobRef } from "../contract/event";
import { type OffloadMark, offloadOf, placeholderFor } from "../log/event-rows";
import type { AssistantPart, NeutralMessage, ToolResultPart } from "../model/types";

// The offload mark and its placeholder live with the log's model view, which stores the same placeholder.
export { type OffloadMark, offloadOf, placeholderFor };

export type ContextInput = {
  system: string;
  /** The checkpoint summary the context starts from, if any. */
  summary: string | null;
  /** Visible events after the checkpoint, ascending. */
  events: Event[];
  /**
   * Results archived at a compaction (older results over 4 KiB), by call id: shown as placeholders
   * although they were under the offload threshold when committed. They come from the checkpoint
   * event (`stateDelta.checkpoint.placeholders`), so they change only when a compaction moves the waterline.
   */
  placeholders?: ReadonlyMap<string, OffloadMark>;
};

/**
 * Projects the log to provider-neutral messages (docs/design.md §6): system prompt, checkpoint
 * summary, then visible events with calls paired to responses. User input that arrived
 * while the model was answering or tool calls were pending is placed after that answer and
 * those calls' results (docs/API.md §3 Turns); hidden `modelRequest` events mark the answering. Deterministic, so
 * between compactions each request extends the previous one element by element.
 */
export function buildModelMessages(input: ContextInput): NeutralMessage[] {
  const fold = new MessageFold(headMessages(input.system, input.summary));
  for (const e of input.events) fold.push(e, input.placeholders);
  return fold.messages();
}

/** The messages every request starts with: the system prompt and the checkpoint summary, if any. */
export function headMessages(system: string, summary: string | null): NeutralMessage[] {
  const messages: NeutralMessage[] = [{ role: "system", content: system }];
  if (summary !== null) {
    messages.push({
      role: "user",
      // Worded without "summary": a request whose last message is this one must not read as a
      // compaction request (docs/API.md §1), which ends with a user message that asks for a summary.
      content: `[Continuation checkpoint: the earlier part of this session, condensed]\n${summary}`,
    });
  }
  return messages;
}

/**
 * `buildModelMessages` as a fold, one event at a time (docs/design.md#context): the messages no
 * later event can change are final and handed to `onFinal` once, in order; the answer or the
 * results still being gathered and the input held behind them are the tail, rendered on demand.
 * So a request is the final messages plus the tail, and the next request extends the final ones.
 */
export class MessageFold {
  readonly #final: NeutralMessage[] = [];
  #assistant: AssistantPart[] | null = null;
  #assistantInvocation: string | undefined;
  #results: ToolResultPart[] | null = null;
  readonly #pending = new Set<string>();
  readonly #wireIds = new Map<string, string>();
  readonly #usedWire = new Set<string>();
  #heldInput: string[] = [];
  // True from a model request until its answer: input arriving then is read after that answer.
  #awaitingAnswer = false;

  constructor(
    head: NeutralMessage[],
    private readonly onFinal: (m: NeutralMessage) => void = () => {},
  ) {
    for (const m of head) this.#emit(m);
  }

  #emit(m: NeutralMessage) {
    this.#final.push(m);
    this.onFinal(m);
  }
  #flushAssistant() {
    if (this.#assistant) this.#emit({ role: "assistant", content: this.#assistant });
    this.#assistant = null;
  }
  #flushResults() {
    if (this.#results) this.#emit({ role: "tool", content: this.#results });
    this.#results = null;
  }
  #flushHeld() {
    for (const text of this.#heldInput) this.#emit({ role: "user", content: text });
    this.#heldInput = [];
  }

  push(e: Event, placeholders?: ReadonlyMap<string, OffloadMark>): void {
    // A compaction's own request is not the turn's: it has no answer in the transcript.
    if (e.actions?.modelRequest && e.actions.modelRequest.purpose !== "compaction") {
      this.#flushAssistant();
      this.#flushResults();
      this.#flushHeld();
      this.#awaitingAnswer = true;
      return;
    }
    if (e.modelVisibility !== "visible") return;
    const c = e.content;
    if (!c) return;
    // Visible runtime text (the length continuation's note, docs/API.md §7.10) reads as input too.
    if ((e.author === "user" || e.author === "runtime") && c.type === "text") {
      if (this.#pending.size > 0 || this.#awaitingAnswer) {
        this.#heldInput.push(c.text);
        return;
      }
      this.#flushAssistant();
      this.#flushResults();
      this.#flushHeld();
      this.#emit({ role: "user", content: c.text });
      return;
    }
    if (e.author === "model" && (c.type === "text" || c.type === "thinking" || c.type === "functionCall")) {
      this.#awaitingAnswer = false;
      if (!this.#assistant || e.invocationId !== this.#assistantInvocation || this.#results) {
        this.#flushAssistant();
        this.#flushResults();
        this.#assistant = [];
        this.#assistantInvocation = e.invocationId;
      }
      const assistant = this.#assistant;
      if (c.type === "text") assistant.push({ type: "text", text: c.text });
      else if (c.type === "thinking")
        assistant.push(
          c.signature !== undefined
            ? { type: "thinking", text: c.text, signature: c.signature }
            : { type: "thinking", text: c.text },
        );
      else {
        // docs/API.md §7.6: the runtime's call id, and the provider's own for the wire.
        // A provider id seen before in this request (some reuse "call_0") stays off the wire.
        const given = (c as { providerCallId?: unknown }).providerCallId;
        const providerCallId = typeof given === "string" && !this.#usedWire.has(given) ? given : undefined;
        if (providerCallId !== undefined) {
          this.#usedWire.add(providerCallId);
          this.#wireIds.set(c.callId, providerCallId);
        }
        assistant.push({
          type: "tool-call",
          callId: c.callId,
          name: c.name,
          args: c.args,
          ...(providerCallId !== undefined ? { providerCallId } : {}),
        });
        this.#pending.add(c.callId);
      }
      return;
    }
    if (c.type === "functionResponse") {
      this.#flushAssistant();
      this.#results ??= [];
      const mark = offloadOf(e) ?? placeholders?.get(c.callId) ?? blobMark(c.response);
      const output = mark ? placeholderFor(c.name, mark) : c.response;
      const wireId = this.#wireIds.get(c.callId);
      this.#results.push({
        type: "tool-result",
        callId: c.callId,
        ...(wireId !== undefined ? { providerCallId: wireId } : {}),
        name: c.name,
        status: c.status,
        output,
      });
      this.#pending.delete(c.callId);
      if (this.#pending.size === 0) {
        this.#flushResults();
        this.#flushHeld();
      }
    }
  }

  /** How many messages are final. */
  get finalCount(): number {
    return this.#final.length;
  }

  /** What the gathered answer or results and the held input read as if the log ended here (copies). */
  tail(): NeutralMessage[] {
    const out: NeutralMessage[] = [];
    if (this.#assistant) out.push({ role: "assistant", content: [...this.#assistant] });
    if (this.#results) out.push({ role: "tool", content: [...this.#results] });
    for (const text of this.#heldInput) out.push({ role: "user", content: text });
    return out;
  }

  /** The request's messages if the log ended here. */
  messages(): NeutralMessage[] {
    return [...this.#final, ...this.tail()];
  }
}

/**
 * A response kept in the blob store because its event was over 512 KiB (docs/API.md §3) but not
 * marked as offloaded (an offload threshold above that size): shown as a placeholder, never as `$blob`.
 */
function blobMark(response: unknown): OffloadMark | null {
  return isBlobRef(response) ? { sha256: response.$blob.sha256, bytes: response.$blob.bytes, preview: "" } : null;
}

/** The one token estimator (docs/design.md §6): characters per token for text the provider has not counted. */
export const CHARS_PER_TOKEN = 4;

/** ~chars/4 of a length in characters. */
export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** ~chars/4: the estimate for text the provider has not yet counted for us. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return tokensForChars(text?.length ?? 0);
}
