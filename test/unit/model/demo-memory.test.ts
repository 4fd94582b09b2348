import { describe, expect, it } from "vitest";
import { type ModelRequest, planDemoStep, type ToolSpec } from "../../../src/model";

const MODEL = { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 } as const;
const spec = (name: string): ToolSpec => ({ name, description: name, parameters: { type: "object" } });
const ALL = [spec("write_file"), spec("remember"), spec("recall"), spec("forget")];
const request = (text: string, tools = ALL, after: ModelRequest["messages"] = []): ModelRequest => ({
  model: MODEL,
  messages: [{ role: "system", content: "s" }, { role: "user", content: text }, ...after],
  tools,
});

describe("the demo model and memory", () => {
  it('"remember …" calls remember with the fact; "always remember …" pins it', () => {
    expect(planDemoStep(request("remember that our fiscal year starts in April"))).toMatchObject({
      kind: "tool-call",
      name: "remember",
      args: { text: "our fiscal year starts in April" },
    });
    expect(planDemoStep(request("Always remember: deploys are on Tuesdays"))).toMatchObject({
      name: "remember",
      args: { text: "deploys are on Tuesdays", pinned: true },
    });
  });

  it('"what do you remember about X" calls recall with X', () => {
    expect(planDemoStep(request("What do you remember about fiscal year?"))).toMatchObject({
      kind: "tool-call",
      name: "recall",
      args: { query: "fiscal year" },
    });
  });

  it("answers from the tool's response, and walks the workspace when the session has no memory tool", () => {
    const call = planDemoStep(request("what do you remember about fiscal year?"));
    if (call.kind !== "tool-call") throw new Error("expected a call");
    const after: ModelRequest["messages"] = [
      { role: "assistant", content: [{ type: "tool-call", callId: call.callId, name: "recall", args: call.args }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            callId: call.callId,
            name: "recall",
            status: "ok",
            output: { entries: [{ id: "mem_1", text: "FY starts in April", topic: "finance" }], truncated: false },
          },
        ],
      },
    ];
    const answer = planDemoStep(request("what do you remember about fiscal year?", ALL, after));
    expect(answer).toMatchObject({ kind: "answer" });
    expect(answer.kind === "answer" && answer.text).toContain("- [finance] FY starts in April");
    expect(planDemoStep(request("remember the milk", [spec("write_file")]))).toMatchObject({ name: "write_file" });
    // A task that merely starts with "remember" is a task, even with the memory tools there.
    expect(planDemoStep(request("remember the milk", ALL))).toMatchObject({ name: "write_file" });
  });
});
