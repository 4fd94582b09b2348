/** docs/API.md §7.6: the runtime mints call ids; the provider's own id is used only on the wire. */
import { describe, expect, it } from "vitest";
import { toAiSdkPrompt } from "../../../src/model/convert";
import { buildModelMessages } from "../../../src/projections";
import { newLog } from "../support/fixtures";

function logWith(calls: { callId: string; providerCallId?: string }[]) {
  const ev = newLog();
  ev.user("go");
  ev.modelRequest();
  for (const c of calls) {
    const e = ev.modelCall(c.callId, "read_file", { path: "a" });
    if (c.providerCallId !== undefined) Object.assign(e.content!, { providerCallId: c.providerCallId });
  }
  for (const c of calls) ev.response(c.callId, "ok");
  return ev.events;
}

const sdkIds = (events: ReturnType<typeof logWith>) => {
  const prompt = toAiSdkPrompt(buildModelMessages({ system: "s", summary: null, events }), "openai");
  return prompt.messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.flatMap((p) => ("toolCallId" in p ? [`${p.type}:${p.toolCallId}`] : [])) : [],
  );
};

describe("call ids on the wire", () => {
  it("a call and its result go to the provider under the provider's id; the neutral messages keep ours", () => {
    const events = logWith([{ callId: "call_ours", providerCallId: "toolu_theirs" }]);
    const messages = buildModelMessages({ system: "s", summary: null, events });
    expect(messages[2]).toEqual({
      role: "assistant",
      content: [
        {
          type: "tool-call",
          callId: "call_ours",
          name: "read_file",
          args: { path: "a" },
          providerCallId: "toolu_theirs",
        },
      ],
    });
    expect(sdkIds(events)).toEqual(["tool-call:toolu_theirs", "tool-result:toolu_theirs"]);
  });

  it("a provider id reused within the request stays off the wire for the later call, which goes under ours", () => {
    const events = logWith([
      { callId: "call_a", providerCallId: "call_0" },
      { callId: "call_b", providerCallId: "call_0" },
      { callId: "call_c" },
    ]);
    expect(sdkIds(events)).toEqual([
      "tool-call:call_0",
      "tool-call:call_b",
      "tool-call:call_c",
      "tool-result:call_0",
      "tool-result:call_b",
      "tool-result:call_c",
    ]);
  });
});
