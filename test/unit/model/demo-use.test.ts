import { describe, expect, it } from "vitest";
import { type ModelRequest, planDemoStep, type ToolSpec } from "../../../src/model";
import { argsFromSchema } from "../../../src/model/demo-args";

const MODEL = { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 } as const;
const ECHO: ToolSpec = {
  name: "everything__echo",
  description: "Echoes back the input string",
  parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
};
const SUM: ToolSpec = {
  name: "everything__get-sum",
  description: "Adds two numbers",
  parameters: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" }, note: { type: "string" } },
    required: ["a", "b"],
  },
};
const WRITE: ToolSpec = { name: "write_file", description: "w", parameters: { type: "object" } };
const request = (text: string, tools: ToolSpec[] = [WRITE, ECHO, SUM]): ModelRequest => ({
  model: MODEL,
  messages: [
    { role: "system", content: "s" },
    { role: "user", content: text },
  ],
  tools,
});

describe('the demo model asked to "use <tool>"', () => {
  it("calls that tool with its required arguments built from the schema", () => {
    const step = planDemoStep(request("please use everything__get-sum"));
    expect(step).toMatchObject({ kind: "tool-call", name: "everything__get-sum", args: { a: 2, b: 2 } });
    expect(Object.keys((step as { args: object }).args)).toEqual(["a", "b"]);
  });

  it("finds an MCP tool by its own name when one server has it", () => {
    const step = planDemoStep(request("use echo"));
    expect(step).toMatchObject({
      kind: "tool-call",
      name: "everything__echo",
      args: { message: expect.any(String) },
    });
  });

  it("answers with what the tool returned, then stops calling", () => {
    const first = planDemoStep(request("use everything__echo"));
    if (first.kind !== "tool-call") throw new Error("expected a call");
    const after: ModelRequest = {
      ...request("use everything__echo"),
      messages: [
        ...request("use everything__echo").messages,
        {
          role: "assistant",
          content: [{ type: "tool-call", callId: first.callId, name: first.name, args: first.args }],
        },
        {
          role: "tool",
          content: [{ type: "tool-result", callId: first.callId, name: first.name, status: "ok", output: "Echo: hi" }],
        },
      ],
    };
    const answer = planDemoStep(after);
    expect(answer.kind).toBe("answer");
    expect((answer as { text: string }).text).toContain("Echo: hi");
  });

  it("without a tool of that name, walks the workspace as before", () => {
    expect(planDemoStep(request("use nothing_like_it"))).toMatchObject({ kind: "tool-call", name: "write_file" });
  });
});

describe("arguments from a JSON schema", () => {
  it("defaults, consts, enums, nested objects and arrays", () => {
    expect(
      argsFromSchema({
        type: "object",
        required: ["mode", "level", "fixed", "when", "tags", "inner", "flag", "count"],
        properties: {
          mode: { type: "string", enum: ["fast", "slow"] },
          level: { type: "integer", default: 3 },
          fixed: { const: "x" },
          when: { anyOf: [{ type: "string" }, { type: "null" }] },
          tags: { type: "array", items: { type: "string" } },
          inner: { type: "object", properties: { id: { type: "integer", minimum: 5 } }, required: ["id"] },
          flag: { type: "boolean" },
          count: { type: "number" },
          optional: { type: "string" },
        },
      }),
    ).toEqual({
      mode: "fast",
      level: 3,
      fixed: "x",
      when: "hello from highwater (when)",
      tags: ["hello from highwater (tags)"],
      inner: { id: 5 },
      flag: true,
      count: 2,
    });
  });
});
