import { type Event, isBlobRef, type OffloadMark, offloadOf, placeholderFor } from "../log";
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
 * Projects the log to provider-neutral messages (DESIGN §6): system prompt, checkpoint
 * summary, then visible events with calls paired to responses. User input that arrived
 * while the model was answering or tool calls were pending is placed after that answer and
 * those calls' results (CONTRACT §3 Turns); hidden `modelRequest` events mark the answering. Deterministic, so
 * between compactions each request extends the previous one element by element.
 */
export function buildModelMessages(input: ContextInput): NeutralMessage[] {
  const messages: NeutralMessage[] = [{ role: "system", content: input.system }];
  if (input.summary !== null) {
    messages.push({
      role: "user",
      // Worded without "summary": a request whose last message is this one must not read as a
      // compaction request (CONTRACT §1), which ends with a user message that asks for a summary.
      content: `[Continuation checkpoint: the earlier part of this session, condensed]\n${input.summary}`,
    });
  }
  let assistant: AssistantPart[] | null = null;
  let assistantInvocation: string | undefined;
  let results: ToolResultPart[] | null = null;
  const pending = new Set<string>();
  const wireIds = new Map<string, string>();
  const usedWire = new Set<string>();
  let heldInput: string[] = [];

  const flushAssistant = () => {
    if (assistant) messages.push({ role: "assistant", content: assistant });
    assistant = null;
  };
  const flushResults = () => {
    if (results) messages.push({ role: "tool", content: results });
    results = null;
  };
  const flushHeld = () => {
    for (const text of heldInput) messages.push({ role: "user", content: text });
    heldInput = [];
  };

  // True from a model request until its answer: input arriving then is read after that answer.
  let awaitingAnswer = false;
  for (const e of input.events) {
    // A compaction's own request is not the turn's: it has no answer in the transcript.
    if (e.actions?.modelRequest && e.actions.modelRequest.purpose !== "compaction") {
      flushAssistant();
      flushResults();
      flushHeld();
      awaitingAnswer = true;
      continue;
    }
    if (e.modelVisibility !== "visible") continue;
    const c = e.content;
    if (!c) continue;
    // Visible runtime text (the length continuation's note, CONTRACT §7.10) reads as input too.
    if ((e.author === "user" || e.author === "runtime") && c.type === "text") {
      if (pending.size > 0 || awaitingAnswer) {
        heldInput.push(c.text);
        continue;
      }
      flushAssistant();
      flushResults();
      flushHeld();
      messages.push({ role: "user", content: c.text });
      continue;
    }
    if (e.author === "model" && (c.type === "text" || c.type === "thinking" || c.type === "functionCall")) {
      awaitingAnswer = false;
      if (!assistant || e.invocationId !== assistantInvocation || results) {
        flushAssistant();
        flushResults();
        assistant = [];
        assistantInvocation = e.invocationId;
      }
      if (c.type === "text") assistant.push({ type: "text", text: c.text });
      else if (c.type === "thinking")
        assistant.push(
          c.signature !== undefined
            ? { type: "thinking", text: c.text, signature: c.signature }
            : { type: "thinking", text: c.text },
        );
      else {
        // CONTRACT §7.6: the runtime's call id, and the provider's own for the wire.
        // A provider id seen before in this request (some reuse "call_0") stays off the wire.
        const given = (c as { providerCallId?: unknown }).providerCallId;
        const providerCallId = typeof given === "string" && !usedWire.has(given) ? given : undefined;
        if (providerCallId !== undefined) {
          usedWire.add(providerCallId);
          wireIds.set(c.callId, providerCallId);
        }
        assistant.push({
          type: "tool-call",
          callId: c.callId,
          name: c.name,
          args: c.args,
          ...(providerCallId !== undefined ? { providerCallId } : {}),
        });
        pending.add(c.callId);
      }
      continue;
    }
    if (c.type === "functionResponse") {
      flushAssistant();
      results ??= [];
      const mark = offloadOf(e) ?? input.placeholders?.get(c.callId) ?? blobMark(c.response);
      const output = mark ? placeholderFor(c.name, mark) : c.response;
      const wireId = wireIds.get(c.callId);
      results.push({
        type: "tool-result",
        callId: c.callId,
        ...(wireId !== undefined ? { providerCallId: wireId } : {}),
        name: c.name,
        status: c.status,
        output,
      });
      pending.delete(c.callId);
      if (pending.size === 0) {
        flushResults();
        flushHeld();
      }
    }
  }
  flushAssistant();
  flushResults();
  flushHeld();
  return messages;
}

/**
 * A response kept in the blob store because its event was over 512 KiB (CONTRACT §3) but not
 * marked as offloaded (an offload threshold above that size): shown as a placeholder, never as `$blob`.
 */
function blobMark(response: unknown): OffloadMark | null {
  return isBlobRef(response) ? { sha256: response.$blob.sha256, bytes: response.$blob.bytes, preview: "" } : null;
}

/** The one token estimator (DESIGN §6): characters per token for text the provider has not counted. */
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
