import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ModelRequest, planDemoStep, type ToolSpec } from "../../../src/model";

const MODEL = { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 } as const;
const LOAD: ToolSpec = { name: "load_skill", description: "l", parameters: { type: "object" } };
const WRITE: ToolSpec = { name: "write_file", description: "w", parameters: { type: "object" } };
const request = (text: string, tools: ToolSpec[] = [WRITE, LOAD]): ModelRequest => ({
  model: MODEL,
  messages: [
    { role: "system", content: "s" },
    { role: "user", content: text },
  ],
  tools,
});
const TASK = "Use the release-notes skill to announce skills you can load by name";

function answeredWith(text: string, output: unknown, status: "ok" | "error" = "ok"): ModelRequest {
  const first = planDemoStep(request(text));
  if (first.kind !== "tool-call") throw new Error("expected a call");
  return {
    ...request(text),
    messages: [
      ...request(text).messages,
      { role: "assistant", content: [{ type: "tool-call", callId: first.callId, name: first.name, args: first.args }] },
      { role: "tool", content: [{ type: "tool-result", callId: first.callId, name: first.name, status, output }] },
    ],
  };
}

describe('the demo model asked to "use the <name> skill"', () => {
  it("loads that skill by name", () => {
    expect(planDemoStep(request(TASK))).toMatchObject({
      kind: "tool-call",
      name: "load_skill",
      args: { name: "release-notes" },
    });
  });

  it("then answers in the skill's template, with the request in it (the example skill)", () => {
    const body = readFileSync("examples/skills/release-notes/SKILL.md", "utf8").split("\n---\n")[1]!;
    const answer = planDemoStep(answeredWith(TASK, { name: "release-notes", content: body }));
    expect(answer.kind).toBe("answer");
    const text = (answer as { text: string }).text;
    expect(text).toContain("Following the release-notes skill");
    expect(text).toContain("## Added\n- announce skills you can load by name");
    expect(text).toContain("## Breaking");
  });

  it("says so when the skill could not be loaded", () => {
    const answer = planDemoStep(answeredWith(TASK, { code: "unknown_skill", message: "no skill" }, "error"));
    expect((answer as { text: string }).text).toMatch(/could not load the release-notes skill/);
  });

  it("without load_skill among the tools, walks the workspace as before", () => {
    expect(planDemoStep(request(TASK, [WRITE]))).toMatchObject({ kind: "tool-call", name: "write_file" });
  });
});
