import type { Event } from "../log";
import type { AssistantPart, NeutralMessage, ToolResultPart } from "../model/types";

/** An offloaded tool result, recorded on its functionResponse event as `actions.stateDelta.offload`. */
export type OffloadMark = { sha256: string; bytes: number; preview: string };

export function offloadOf(e: Event): OffloadMark | null {
  const mark = e.actions?.stateDelta?.offload as OffloadMark | undefined;
  return mark && typeof mark.sha256 === "string" ? mark : null;
}

/** What the model sees in place of an archived result (CONTRACT §5). */
export function placeholderFor(tool: string, mark: OffloadMark) {
  return {
    offloaded: true,
    tool,
    bytes: mark.bytes,
    sha256: mark.sha256,
    ref: `archive://${mark.sha256}`,
    preview: mark.preview,
  };
}

export type ContextInput = {
  system: string;
  /** The checkpoint summary the context starts from, if any. */
  summary: string | null;
  /** Visible events after the checkpoint, ascending. */
  events: Event[];
  /** Call ids whose results are shown as placeholders although not over the threshold (older results at a compaction). */
  placeholderCalls?: ReadonlySet<string>;
};

/**
 * Projects the log to provider-neutral messages (DESIGN §6): system prompt, checkpoint
 * summary, then visible events with calls paired to responses. User input that arrived
 * while tool calls were pending is placed after those calls' results. Deterministic, so
 * between compactions each request extends the previous one element by element.
 */
export function buildModelMessages(input: ContextInput): NeutralMessage[] {
  const messages: NeutralMessage[] = [{ role: "system", content: input.system }];
  if (input.summary !== null) {
    messages.push({
      role: "user",
      content: `[Continuation checkpoint: a summary of the earlier part of this session]\n${input.summary}`,
    });
  }
  let assistant: AssistantPart[] | null = null;
  let assistantInvocation: string | undefined;
  let results: ToolResultPart[] | null = null;
  const pending = new Set<string>();
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

  for (const e of input.events) {
    if (e.modelVisibility !== "visible") continue;
    const c = e.content;
    if (!c) continue;
    if (e.author === "user" && c.type === "text") {
      if (pending.size > 0) {
        heldInput.push(c.text);
        continue;
      }
      flushAssistant();
      flushResults();
      messages.push({ role: "user", content: c.text });
      continue;
    }
    if (e.author === "model" && (c.type === "text" || c.type === "thinking" || c.type === "functionCall")) {
      if (!assistant || e.invocationId !== assistantInvocation || results) {
        flushAssistant();
        flushResults();
        flushHeld();
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
        assistant.push({ type: "tool-call", callId: c.callId, name: c.name, args: c.args });
        pending.add(c.callId);
      }
      continue;
    }
    if (c.type === "functionResponse") {
      flushAssistant();
      results ??= [];
      const mark = offloadOf(e);
      const output =
        mark || input.placeholderCalls?.has(c.callId)
          ? placeholderFor(c.name, mark ?? { sha256: "", bytes: 0, preview: "" })
          : c.response;
      results.push({ type: "tool-result", callId: c.callId, name: c.name, status: c.status, output });
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

/** ~chars/4: the estimate for text the provider has not yet counted for us. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return Math.ceil((text?.length ?? 0) / 4);
}
