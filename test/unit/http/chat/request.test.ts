/** What a `POST /v1/chat` body asks for (docs/API.md#chat-ai-sdk-ui-message-stream); anything else is 400. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/contract";
import { chatSessionId, parseChatRequest } from "../../../../src/http/chat/request";

const user = (parts: unknown[], id = "m1") => ({ id, role: "user", parts });
const body = (...messages: unknown[]) => ({ id: "s", messages, trigger: "submit-message" });

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.code : "thrown";
  }
  return undefined;
}

describe("chat request", () => {
  it("posts the last user message's text under its own id; earlier messages are ignored", () => {
    const earlier = { id: "x", role: "assistant", parts: [{ type: "text", text: "old" }] };
    const parts = [
      { type: "text", text: "a" },
      { type: "file", url: "u", mediaType: "image/png" },
      { type: "text", text: "b" },
    ];
    expect(parseChatRequest(body(user([{ type: "text", text: "z" }], "m0"), earlier, user(parts)))).toEqual({
      kind: "message",
      messageId: "m1",
      text: "a\nb",
    });
  });

  it("an assistant message with answered approvals decides them, bound to the input it shows", () => {
    const tool = {
      type: "dynamic-tool",
      toolName: "write_file",
      toolCallId: "c1",
      state: "approval-responded",
      input: { path: "a" },
      approval: { id: "apr_1", approved: false, reason: "no" },
    };
    const other = { ...tool, toolCallId: "c0", state: "output-available", approval: { id: "apr_0", approved: true } };
    expect(parseChatRequest(body({ id: "a", role: "assistant", parts: [other, tool] }))).toEqual({
      kind: "approvals",
      approvals: [{ approvalId: "apr_1", toolCallId: "c1", approved: false, reason: "no", input: { path: "a" } }],
      toolCallIds: ["c0", "c1"],
    });
  });

  it("an approval answered in an earlier message (a message joined while it waited) is the one `messageId` names", () => {
    const tool = {
      type: "dynamic-tool",
      toolName: "write_file",
      toolCallId: "c1",
      state: "approval-responded",
      input: { path: "a" },
      approval: { id: "apr_1", approved: true },
    };
    const asked = { id: "a_2", role: "assistant", parts: [{ type: "step-start" }, tool] };
    const joined = user([{ type: "text", text: "and another thing" }], "m-2");
    const decided = {
      kind: "approvals",
      approvals: [{ approvalId: "apr_1", toolCallId: "c1", approved: true, input: { path: "a" } }],
      toolCallIds: ["c1"],
    };
    expect(
      parseChatRequest({ ...body(user([{ type: "text", text: "go" }]), asked, joined), messageId: "a_2" }),
    ).toEqual(decided);
    // Without it, or naming a message with nothing answered, the last message counts as before.
    expect(parseChatRequest(body(asked, joined))).toMatchObject({ kind: "message", messageId: "m-2" });
    const plain = { id: "a_9", role: "assistant", parts: [{ type: "text", text: "hi" }] };
    expect(parseChatRequest({ ...body(plain, joined), messageId: "a_9" })).toMatchObject({ kind: "message" });
    expect(parseChatRequest({ ...body(asked, joined), messageId: "nope" })).toMatchObject({ kind: "message" });
  });

  it.each([
    ["no messages", { id: "s", messages: [] }],
    ["a user message without text", body(user([{ type: "file", url: "u", mediaType: "image/png" }]))],
    ["an empty text", body(user([{ type: "text", text: "" }]))],
    ["a lone surrogate", body(user([{ type: "text", text: "\ud800" }]))],
    [
      "an assistant message with nothing answered",
      body({ id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] }),
    ],
    ["a message without id", body({ role: "user", parts: [{ type: "text", text: "x" }] })],
    ["a system message", body({ id: "y", role: "system", parts: [{ type: "text", text: "x" }] })],
    ["messages not an array", { id: "s", messages: "hi" }],
    [
      "a responded part without approval",
      body({
        id: "a",
        role: "assistant",
        parts: [{ type: "dynamic-tool", toolCallId: "c", state: "approval-responded" }],
      }),
    ],
  ])("400 for %s", (_name, raw) => {
    expect(code(() => parseChatRequest(raw))).toBe("bad_request");
  });

  it("the session id is read first (for the 404), and its absence is 400", () => {
    expect(chatSessionId({ id: "abc" })).toBe("abc");
    expect(code(() => chatSessionId({ messages: [] }))).toBe("bad_request");
    expect(code(() => chatSessionId(null))).toBe("bad_request");
  });
});
