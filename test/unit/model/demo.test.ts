import { describe, expect, it } from "vitest";
import {
  type AssistantPart,
  DEMO_NOTE_PATH,
  type ModelPart,
  type ModelRequest,
  type NeutralMessage,
  planDemoStep,
  type ToolSpec,
} from "../../../src/model";
import { createDemoProvider, pickSearchWord } from "../../../src/model/demo";

const spec = (name: string): ToolSpec => ({ name, description: name, parameters: { type: "object" } });
const ALL_TOOLS = ["read_file", "write_file", "list_files", "search_files", "http_fetch"].map(spec);
const MODEL = { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 } as const;
const TASK = "Plan a garden with tomatoes and basil";

function request(messages: NeutralMessage[], tools: ToolSpec[] = ALL_TOOLS): ModelRequest {
  return { model: MODEL, messages, tools };
}

async function collect(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

/** Drive the demo like the runtime would: answer each call with an ok result until it stops calling. */
async function runTurn(messages: NeutralMessage[], tools: ToolSpec[] = ALL_TOOLS) {
  const demo = createDemoProvider({ chunkDelayMs: 0 });
  const history = [...messages];
  const answers: ModelPart[][] = [];
  for (let step = 0; step < 10; step++) {
    const parts = await collect(demo.stream(request(history, tools), new AbortController().signal));
    answers.push(parts);
    const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("");
    const calls = parts.flatMap((p) => (p.type === "tool-call" ? [p] : []));
    const content: AssistantPart[] = [
      ...(text ? [{ type: "text" as const, text }] : []),
      ...calls.map((c) => ({ type: "tool-call" as const, callId: c.callId, name: c.name, args: c.args })),
    ];
    history.push({ role: "assistant", content });
    if (calls.length === 0) break;
    history.push({
      role: "tool",
      content: calls.map((c) => ({
        type: "tool-result" as const,
        callId: c.callId,
        name: c.name,
        status: "ok" as const,
        output: { ok: true },
      })),
    });
  }
  return { answers, history };
}

const calls = (answers: ModelPart[][]) => answers.flatMap((a) => a.filter((p) => p.type === "tool-call"));

describe("demo model", () => {
  it("writes the task, lists, reads it back, searches, then answers as the demo", async () => {
    const { answers } = await runTurn([
      { role: "system", content: "You are an agent." },
      { role: "user", content: TASK },
    ]);

    expect(calls(answers).map((c) => [c.name, c.args])).toEqual([
      ["write_file", { path: DEMO_NOTE_PATH, content: expect.stringContaining(TASK) }],
      ["list_files", {}],
      ["read_file", { path: DEMO_NOTE_PATH }],
      ["search_files", { pattern: "tomatoes" }],
    ]);
    const final = answers.at(-1) ?? [];
    const text = final.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("");
    expect(text.startsWith("[demo model]")).toBe(true);
    expect(text).toContain("built-in demo model");
    for (const tool of ["write_file", "list_files", "read_file", "search_files"])
      expect(text).toContain(`(${tool}, ok)`);
    expect(text).toContain(`searched the workspace for "tomatoes"`);
    expect(final.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("streams text in a handful of chunks and reports usage from request and output size", async () => {
    const req = request(
      [
        { role: "system", content: "s" },
        { role: "user", content: TASK },
      ],
      [],
    );
    const parts = await collect(createDemoProvider({ chunkDelayMs: 0 }).stream(req, new AbortController().signal));

    const deltas = parts.filter((p) => p.type === "text-delta");
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.length).toBeLessThanOrEqual(10);
    const text = deltas.map((p) => p.text).join("");
    expect(parts.at(-2)).toEqual({
      type: "usage",
      inputTokens: Math.ceil(JSON.stringify(req).length / 4),
      outputTokens: Math.ceil(text.length / 4),
    });
  });

  it("skips tools the session does not offer", async () => {
    const { answers } = await runTurn([{ role: "user", content: TASK }], [spec("list_files"), spec("read_file")]);

    expect(calls(answers).map((c) => c.name)).toEqual(["list_files", "read_file"]);
  });

  it("starts over after a new user message and keeps call ids unique across the session", async () => {
    const first = await runTurn([{ role: "user", content: TASK }]);
    const second = await runTurn([...first.history, { role: "user", content: "Now water the basil daily" }]);

    const names = calls(second.answers).map((c) => c.name);
    expect(names).toEqual(["write_file", "list_files", "read_file", "search_files"]);
    const ids = [...calls(first.answers), ...calls(second.answers)].map((c) => c.callId);
    expect(new Set(ids).size).toBe(8);
    // Compaction drops earlier calls from the request; ids must still not repeat.
    const afterCompaction = planDemoStep(request([{ role: "user", content: "Now water the basil daily" }]));
    expect(afterCompaction.kind).toBe("tool-call");
    if (afterCompaction.kind === "tool-call") expect(ids).not.toContain(afterCompaction.callId);
  });

  it("is a pure function of the request", () => {
    const messages: NeutralMessage[] = [{ role: "user", content: TASK }];
    expect(planDemoStep(request(messages))).toEqual(planDemoStep(request(structuredClone(messages))));
  });

  it("a user asking for a summary in a normal turn still gets the tool walk", () => {
    const step = planDemoStep(
      request([
        { role: "system", content: "You are an agent." },
        { role: "user", content: "Summarise the report" },
      ]),
    );
    expect(step.kind).toBe("tool-call");
  });

  it('recognises a compaction request by its shape (no tools), not by a word: no "summary" needed', () => {
    const step = planDemoStep(
      request(
        [
          { role: "system", content: "Condense the history into a continuation checkpoint." },
          { role: "user", content: `${TASK}\n\nCondense the events above.` },
        ],
        [],
      ),
    );
    expect(step.kind).toBe("answer");
    if (step.kind === "answer") expect(step.text).toContain("## Goal and deliverable");
  });

  it("a user whose task says summary, with tools offered, gets the tool walk and the goal keeps the task", () => {
    const step = planDemoStep(
      request([
        { role: "system", content: "You are an agent." },
        { role: "user", content: "Write a summary of the quarterly report" },
      ]),
    );
    expect(step).toMatchObject({ kind: "tool-call", name: "write_file" });
  });

  it("answers a compaction request (no tools, asks for a summary) with a sectioned summary", () => {
    const step = planDemoStep(
      request(
        [
          { role: "system", content: "You are an agent." },
          { role: "user", content: TASK },
          {
            role: "assistant",
            content: [{ type: "tool-call", callId: "c1", name: "write_file", args: { path: "notes/task.md" } }],
          },
          {
            role: "tool",
            content: [{ type: "tool-result", callId: "c1", name: "write_file", status: "ok", output: {} }],
          },
          { role: "user", content: "Write a summary of the conversation so far." },
        ],
        [],
      ),
    );

    expect(step.kind).toBe("answer");
    if (step.kind === "answer") {
      expect(step.text).toContain("## Goal and deliverable");
      expect(step.text).toContain(TASK);
      expect(step.text).toContain("notes/task.md");
    }
  });

  it("stops when the signal fires", async () => {
    const controller = new AbortController();
    const seen: ModelPart[] = [];
    const stream = createDemoProvider({ chunkDelayMs: 5 }).stream(
      request([{ role: "user", content: TASK }], []),
      controller.signal,
    );

    await expect(
      (async () => {
        for await (const part of stream) {
          seen.push(part);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toHaveLength(1);
  });

  it("picks the longest word of the task to search for", () => {
    expect(pickSearchWord("fix the flaky login test")).toBe("flaky");
    expect(pickSearchWord("hi")).toBe("Task");
  });
});
