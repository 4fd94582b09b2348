/**
 * `GET /v1/chat/:id/messages`: the transcript as the AI SDK's `UIMessage[]`
 * (docs/API.md#chat-ai-sdk-ui-message-stream). Pure, and fed page by page. Ids match the stream's:
 * a user message sent through the chat keeps its own id (`ui:<id>` recorded as its idempotency
 * key), and the assistant answer after the user message at seq S is `a_S`, the `messageId` the
 * stream's `start` carries, so a resumed stream replaces the message instead of adding one.
 * A message that joins an open turn starts a new answer; a model call already under way when it
 * arrived finishes in the answer it started in, as that answer's stream shows it.
 */
import type { Event } from "../../log";

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

/** Folds events into UI messages; `add` a page at a time, then read `messages`. */
export class UIMessagesFold {
  readonly messages: UIMessage[] = [];
  #assistant: UIMessage | null = null;
  #lastUserSeq = 0;
  readonly #tools = new Map<string, ToolPart>();
  /** The answer each model call started in: its output goes there. */
  readonly #calls = new Map<string, UIMessage>();

  add(events: Event[]): void {
    for (const e of events) this.#one(e);
  }

  #one(e: Event): void {
    const c = e.content;
    const a = e.actions ?? {};
    if (e.author === "user" && c?.type === "text") {
      this.messages.push({
        id: userMessageId(e),
        role: "user",
        parts: [{ type: "text", text: c.text, state: "done" }],
      });
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
      this.#tools.set(c.callId, part);
      this.#push(part, answer);
    }
    if (a.permissionRequest) {
      const part = this.#tools.get(a.permissionRequest.callId);
      if (part) Object.assign(part, { state: "approval-requested", approval: { id: a.permissionRequest.requestId } });
    }
    const d = a.permissionDecision;
    if (d)
      for (const part of this.#tools.values())
        if ((part.approval as { id?: string } | undefined)?.id === d.requestId)
          Object.assign(part, {
            state: "approval-responded",
            approval: {
              id: d.requestId,
              approved: d.decision === "approve",
              ...(d.reason !== undefined ? { reason: d.reason } : {}),
            },
          });
    if (c?.type === "functionResponse") {
      const part = this.#tools.get(c.callId);
      if (part) {
        if (c.status === "ok") Object.assign(part, { state: "output-available", output: c.response });
        else if (c.status === "rejected") part.state = "output-denied";
        else {
          const r = c.response as { code?: unknown; message?: unknown } | null;
          const message = typeof r?.message === "string" ? r.message : JSON.stringify(c.response);
          const code = c.status === "interrupted" ? "interrupted" : typeof r?.code === "string" ? r.code : "error";
          Object.assign(part, { state: "output-error", errorText: `${code}: ${message}` });
        }
      }
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

  #push(part: UIPart, answer?: UIMessage): void {
    if (answer) {
      answer.parts.push(part);
      return;
    }
    if (!this.#assistant) {
      this.#assistant = { id: assistantMessageId(this.#lastUserSeq), role: "assistant", parts: [] };
      this.messages.push(this.#assistant);
    }
    this.#assistant.parts.push(part);
  }
}
