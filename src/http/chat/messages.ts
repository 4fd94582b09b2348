/**
 * `GET /v1/chat/:id/messages`: the transcript as the AI SDK's `UIMessage[]`
 * (docs/API.md#chat-ai-sdk-ui-message-stream). Pure, and fed page by page. Ids match the stream's:
 * a user message sent through the chat keeps its own id (`ui:<id>` recorded as its idempotency
 * key), and the assistant answer after the user message at seq S is `a_S`, the `messageId` the
 * stream's `start` carries, so a resumed stream replaces the message instead of adding one.
 * A message that joins an open turn starts a new answer; a model call already under way when it
 * arrived finishes in the answer it started in, as that answer's stream shows it.
 */
import { utf8Bytes } from "../../contract";
import type { Event } from "../../log";
import { toolOutcome } from "./outputs";

export type UIPart = { type: string } & Record<string, unknown>;
export type UIMessage = { id: string; role: "user" | "assistant"; parts: UIPart[] };

/** The assistant message id for the answer that follows the user event at `userSeq`. */
export function assistantMessageId(userSeq: number): string {
  return `a_${userSeq}`;
}

/** The UI id of a user event: the chat's own message id when it came through `POST /v1/chat`. */
export function userMessageId(e: Pick<Event, "seq" | "actions">): string {
  const key = e.actions?.stateDelta?.idempotencyKey;
  return typeof key === "string" && key.startsWith("ui:") ? key.slice(3) : `u_${e.seq}`;
}

type ToolPart = UIPart & { toolCallId: string; state: string };

/** The bounds of one page of messages: how many, and their bytes as JSON. */
export type PageBounds = { messages: number; bytes: number };

/**
 * Folds events into UI messages; `add` a page at a time, then read `messages`: the newest that fit
 * the bounds, held as they are folded (older ones leave as soon as they no longer fit, so memory
 * stays within the bound). A single message over the byte bound keeps its newest parts, after a
 * `data-highwater-omitted { parts }` part.
 */
export class UIMessagesFold {
  readonly messages: UIMessage[] = [];
  /** True when the byte bound left messages or parts out. */
  cut = false;
  #assistant: UIMessage | null = null;
  #lastUserSeq = 0;
  readonly #tools = new Map<string, { part: ToolPart; message: UIMessage }>();
  /** The answer each model call started in: its output goes there. */
  readonly #calls = new Map<string, UIMessage>();
  readonly #bytes = new Map<UIMessage, number>();
  readonly #partBytes = new WeakMap<UIPart, number>();
  #total = 0;

  constructor(private readonly bounds: PageBounds = { messages: Number.MAX_SAFE_INTEGER, bytes: Infinity }) {}

  add(events: Event[]): void {
    for (const e of events) this.#one(e);
    this.#trim();
  }

  /** The bytes `part` adds to `message` (or, changed in place, adds since it was measured). */
  #measure(part: UIPart, message: UIMessage): void {
    const now = utf8Bytes(JSON.stringify(part));
    const delta = now - (this.#partBytes.get(part) ?? 0);
    this.#partBytes.set(part, now);
    this.#bytes.set(message, (this.#bytes.get(message) ?? 0) + delta);
    this.#total += delta;
  }

  /** A new message, its envelope (`{"id":…,"role":…,"parts":[]},`) counted. */
  #open(message: UIMessage): void {
    this.messages.push(message);
    const envelope = utf8Bytes(JSON.stringify(message)) + 1;
    this.#bytes.set(message, envelope);
    this.#total += envelope;
  }

  #trim(): void {
    const { messages, bytes } = this.bounds;
    while (this.messages.length > messages || (this.#total > bytes && this.messages.length > 1)) {
      if (this.messages.length <= messages) this.cut = true;
      this.#drop(this.messages[0]!);
    }
    const only = this.messages[0];
    if (!only || this.#total <= bytes) return;
    this.cut = true;
    const marker = only.parts[0]?.type === "data-highwater-omitted" ? only.parts.shift()! : null;
    let omitted = (marker?.data as { parts?: number } | undefined)?.parts ?? 0;
    if (marker) this.#forgetPart(marker, only);
    while (only.parts.length > 1 && this.#total > bytes) {
      this.#forgetPart(only.parts.shift()!, only);
      omitted++;
    }
    const note: UIPart = { type: "data-highwater-omitted", data: { parts: omitted } };
    only.parts.unshift(note);
    this.#measure(note, only);
  }

  /** A message leaves the page: its later output is left out, like an answer before the window. */
  #drop(m: UIMessage): void {
    this.messages.shift();
    this.#total -= this.#bytes.get(m) ?? 0;
    this.#bytes.delete(m);
    for (const [id, t] of this.#tools) if (t.message === m) this.#tools.delete(id);
    for (const [id, answer] of this.#calls) if (answer === m) this.#calls.delete(id);
    if (this.#assistant === m) this.#assistant = null;
  }

  #forgetPart(part: UIPart, m: UIMessage): void {
    const size = this.#partBytes.get(part) ?? 0;
    this.#total -= size;
    this.#bytes.set(m, (this.#bytes.get(m) ?? 0) - size);
    const id = (part as Partial<ToolPart>).toolCallId;
    if (id !== undefined) this.#tools.delete(id);
  }

  #one(e: Event): void {
    const c = e.content;
    const a = e.actions ?? {};
    if (e.author === "user" && c?.type === "text") {
      const message: UIMessage = { id: userMessageId(e), role: "user", parts: [] };
      this.#open(message);
      this.#push({ type: "text", text: c.text, state: "done" }, message);
      this.#assistant = null;
      this.#lastUserSeq = e.seq;
      return;
    }
    if (a.modelRequest && (a.modelRequest as { purpose?: string }).purpose !== "compaction") {
      this.#push({ type: "step-start" });
      if (e.invocationId) this.#calls.set(e.invocationId, this.#assistant!);
    }
    // A model call's output goes to the answer it started in; one that started before the events
    // folded (a window of the newest messages) belongs to an answer left out.
    const answer = e.author === "model" ? this.#answerOf(e.invocationId) : undefined;
    if (answer === null) return;
    if (e.author === "model" && c?.type === "thinking" && c.text)
      this.#push({ type: "reasoning", id: `reasoning-${e.invocationId}`, text: c.text, state: "done" }, answer);
    if (e.author === "model" && c?.type === "text" && c.text)
      this.#push({ type: "text", text: c.text, state: "done" }, answer);
    if (e.author === "model" && c?.type === "functionCall") {
      const part: ToolPart = {
        type: "dynamic-tool",
        toolName: c.name,
        toolCallId: c.callId,
        state: "input-available",
        input: c.args,
      };
      this.#push(part, answer);
      this.#tools.set(c.callId, { part, message: answer ?? this.#assistant! });
    }
    if (a.permissionRequest) {
      const t = this.#tools.get(a.permissionRequest.callId);
      if (t) this.#update(t, { state: "approval-requested", approval: { id: a.permissionRequest.requestId } });
    }
    const d = a.permissionDecision;
    if (d)
      for (const t of this.#tools.values())
        if ((t.part.approval as { id?: string } | undefined)?.id === d.requestId)
          this.#update(t, {
            state: "approval-responded",
            approval: {
              id: d.requestId,
              approved: d.decision === "approve",
              ...(d.reason !== undefined ? { reason: d.reason } : {}),
            },
          });
    if (c?.type === "functionResponse") {
      const t = this.#tools.get(c.callId);
      if (t) this.#update(t, toolOutcome(e, c));
    }
    if (c?.type === "error")
      this.#push({ type: "data-highwater-error", id: `error-${e.seq}`, data: { code: c.code, message: c.message } });
    const notice = a.stateDelta?.recoveryNotice;
    if (notice) this.#push({ type: "data-highwater-recovery", id: `recovery-${e.seq}`, data: notice });
  }

  /** The answer of a model call: null for one that started before the events folded. */
  #answerOf(invocationId: string | undefined): UIMessage | null | undefined {
    if (!invocationId) return undefined;
    return this.#calls.get(invocationId) ?? null;
  }

  #update(t: { part: ToolPart; message: UIMessage }, change: Record<string, unknown>): void {
    Object.assign(t.part, change);
    this.#measure(t.part, t.message);
  }

  #push(part: UIPart, answer?: UIMessage): void {
    if (!answer && !this.#assistant) {
      this.#assistant = { id: assistantMessageId(this.#lastUserSeq), role: "assistant", parts: [] };
      this.#open(this.#assistant);
    }
    const message = answer ?? this.#assistant!;
    message.parts.push(part);
    this.#measure(part, message);
  }
}
