/**
 * What a `POST /v1/chat` body asks for (docs/API.md#chat-ai-sdk-ui-message-stream): the AI SDK
 * transport's `{ id, messages, trigger, messageId? }`, of which only the last message counts
 * (the log is the history). Pure; a bad body is a 400 with the contract's error shape.
 */
import { z } from "zod";
import { ApiError, describeIssues, MessageText } from "../../contract";

/**
 * `useChat`'s transport sends the whole history with every message, so a long chat's body
 * outgrows the 1 MiB of other routes while only its last message counts
 * (docs/API.md#chat-ai-sdk-ui-message-stream). 16 MiB: parsing a body that size measured ~35 MB
 * of heap (its text plus the parsed history) beside the 16 MB of its bytes, about 40% of a
 * Worker's 128 MB, so one such request cannot run the isolate out of memory.
 */
export const MAX_CHAT_BODY_BYTES = 16 * 1024 * 1024;

export const CHAT_BODY_LIMIT = {
  maxBytes: MAX_CHAT_BODY_BYTES,
  message:
    `body over ${MAX_CHAT_BODY_BYTES} bytes: send only the last message with the transport's ` +
    "prepareSendMessagesRequest (the session's log is the history)",
};

/** A user message to post, or the approvals an assistant message answers. */
export type ChatAction =
  | { kind: "message"; messageId: string; text: string }
  | { kind: "approvals"; approvals: ApprovalAnswer[]; toolCallIds: string[] };

export type ApprovalAnswer = {
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
  /** The arguments the client was shown, which the decision is bound to. */
  input: unknown;
};

const Part = z.looseObject({ type: z.string() });
const Message = z.looseObject({
  id: z.string().min(1).max(197),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(Part),
});
const Body = z.looseObject({
  id: z.string(),
  messages: z.array(z.unknown()).min(1),
  trigger: z.string().optional(),
  messageId: z.string().optional(),
});

const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const RespondedToolPart = z.looseObject({
  type: z.string().refine((t) => t === "dynamic-tool" || t.startsWith("tool-")),
  toolCallId: z.string(),
  state: z.literal("approval-responded"),
  input: z.unknown(),
  approval: z.looseObject({ id: z.string().min(1), approved: z.boolean(), reason: z.string().max(4096).optional() }),
});

function parse<T extends z.ZodType>(schema: T, value: unknown, path: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError("bad_request", `${path}${describeIssues(r.error).replace(/^body/, "")}`);
  return r.data;
}

/** The session id a body names, or a 400 when it names none (checked before the rest, for the 404). */
export function chatSessionId(raw: unknown): string {
  const id = (raw as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== "string") throw new ApiError("bad_request", "id: expected string");
  return id;
}

/**
 * The action of a `POST /v1/chat` body; 400 for anything else. The message an approval was
 * answered in is the one the AI SDK names in `messageId`, which is not the last when a message
 * joined the turn while it waited; otherwise the last message counts.
 */
export function parseChatRequest(raw: unknown): ChatAction {
  const body = parse(Body, raw, "");
  const lastRaw = body.messages[body.messages.length - 1];
  const named =
    body.messageId === undefined
      ? undefined
      : body.messages.find((m) => (m as { id?: unknown } | null)?.id === body.messageId);
  if (named !== undefined && named !== lastRaw) {
    const m = Message.safeParse(named);
    const answered = m.success && m.data.role === "assistant" ? approvalsOf(m.data, "messages[messageId]") : null;
    if (answered) return answered;
  }
  const last = parse(Message, lastRaw, "messages.last");
  if (last.role === "user") {
    const texts = last.parts
      .filter((p) => p.type === "text")
      .map((p) => parse(TextPart, p, "messages.last.parts").text);
    if (texts.length === 0) throw new ApiError("bad_request", "messages.last: a user message needs a text part");
    const text = parse(MessageText, texts.join("\n"), "messages.last.parts.text");
    return { kind: "message", messageId: last.id, text };
  }
  const answered = last.role === "assistant" ? approvalsOf(last, "messages.last") : null;
  if (answered) return answered;
  throw new ApiError(
    "bad_request",
    "messages.last: expected a user message with text, or an assistant message with an answered approval",
  );
}

/** The approvals an assistant message answers (its `approval-responded` tool parts), or null if none. */
function approvalsOf(message: z.infer<typeof Message>, path: string): ChatAction | null {
  const approvals = message.parts
    .filter((p) => (p as { state?: unknown }).state === "approval-responded")
    .map((p) => parse(RespondedToolPart, p, `${path}.parts`))
    .map((p) => ({
      approvalId: p.approval.id,
      toolCallId: p.toolCallId,
      approved: p.approval.approved,
      ...(p.approval.reason !== undefined ? { reason: p.approval.reason } : {}),
      input: p.input,
    }));
  // Every call the message shows: their outcomes may follow the decision (calls of the same answer).
  const toolCallIds = message.parts
    .map((p) => (p as { toolCallId?: unknown }).toolCallId)
    .filter((id): id is string => typeof id === "string");
  return approvals.length > 0 ? { kind: "approvals", approvals, toolCallIds } : null;
}
