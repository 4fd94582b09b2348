/**
 * The Workers AI adapter against a fake `AI` binding (docs/API.md §1, §7.9), shared by the Node
 * project (test/unit) and the workerd project (test/do) so both runtimes prove the same things.
 */
import { describe, expect, it } from "vitest";
import {
  createConfiguredProvider,
  createProvider,
  type ModelConfig,
  type ModelPart,
  type ModelRequest,
  ProviderError,
} from "../../src/model";
import { type FakeAnswer, fakeAiBinding } from "./workers-ai-binding";

const MODEL: ModelConfig = {
  provider: "workers-ai",
  name: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
  contextWindow: 32_000,
  maxOutputTokens: 1000,
};

const READ_FILE = {
  name: "read_file",
  description: "Read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: MODEL,
    messages: [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "Read a.txt" },
    ],
    tools: [READ_FILE],
    ...overrides,
  };
}

async function collect(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

async function failure(parts: AsyncIterable<ModelPart>): Promise<ProviderError> {
  const error = await collect(parts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const signal = () => new AbortController().signal;

export function defineWorkersAiSuite(runtime: string): void {
  describe(`workers-ai adapter over a fake AI binding (${runtime})`, () => {
    it("streams text and usage from SSE `data:` lines and finishes on data: [DONE]", async () => {
      const ai = fakeAiBinding([{ kind: "text", pieces: ["Hel", "lo ", "world"] }]);
      const parts = await collect(createProvider(MODEL, { ai }).stream(request(), signal()));
      const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("");
      expect(text).toBe("Hello world");
      expect(parts.filter((p) => p.type === "usage")).toEqual([
        { type: "usage", inputTokens: 120, outputTokens: 7, cachedInputTokens: 100 },
      ]);
      expect(parts.at(-1)).toEqual({ type: "finish", reason: "stop" });
      // One streamed run of the session's model with the system prompt, the user text and the tools.
      expect(ai.calls).toHaveLength(1);
      const call = ai.calls[0]!;
      expect(call.model).toBe(MODEL.name);
      expect(call.inputs.stream).toBe(true);
      expect(JSON.stringify(call.inputs.messages)).toContain("You are a test agent.");
      expect(JSON.stringify(call.inputs.messages)).toContain("Read a.txt");
      expect(JSON.stringify(call.inputs.tools)).toContain("read_file");
      expect(call.inputs.max_tokens).toBe(MODEL.maxOutputTokens);
    });

    it("joins a tool call's streamed arguments into one complete call, finish tool-calls", async () => {
      const ai = fakeAiBinding([
        { kind: "tool", id: "call_wai_1", name: "read_file", argPieces: ['{"pa', 'th":"a.t', 'xt"}'] },
      ]);
      const parts = await collect(createProvider(MODEL, { ai }).stream(request(), signal()));
      const calls = parts.filter((p) => p.type === "tool-call");
      // The package makes the binding's ids unique (`<id>::cf-wai-tool-call::<n>`) and strips that on the wire.
      expect(calls).toEqual([
        { type: "tool-call", callId: expect.stringMatching(/^call_wai_1/), name: "read_file", args: { path: "a.txt" } },
      ]);
      expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
      expect(parts.some((p) => p.type === "usage")).toBe(true);
    });

    it("sends the tool call and its result back under the binding's own call id on the next request", async () => {
      const wireId = "call_wai_1::cf-wai-tool-call::k3";
      const ai = fakeAiBinding([{ kind: "text", pieces: ["a.txt says hi"] }]);
      const followUp = request({
        messages: [
          ...request().messages,
          {
            role: "assistant",
            content: [
              { type: "tool-call", callId: "c1", providerCallId: wireId, name: "read_file", args: { path: "a.txt" } },
            ],
          },
          {
            role: "tool",
            content: [
              {
                type: "tool-result",
                callId: "c1",
                providerCallId: wireId,
                name: "read_file",
                status: "ok",
                output: { text: "hi" },
              },
            ],
          },
        ],
      });
      await collect(createProvider(MODEL, { ai }).stream(followUp, signal()));
      const sent = JSON.stringify(ai.calls[0]!.inputs.messages);
      expect(sent).toContain('"call_wai_1"');
      expect(sent).not.toContain("cf-wai-tool-call");
      expect(sent).not.toContain('"c1"');
      expect(sent).toContain("hi");
    });

    it("a stream that stops without data: [DONE] is a retryable stream_cut, even after a finish_reason", async () => {
      const cut: FakeAnswer[] = [
        { kind: "text", pieces: ["partial"], done: false },
        { kind: "tool", id: "call_x", name: "read_file", argPieces: ['{"path":"a.txt"}'], done: false },
      ];
      for (const answer of cut) {
        const ai = fakeAiBinding([answer]);
        const error = await failure(createProvider(MODEL, { ai }).stream(request(), signal()));
        expect(error).toMatchObject({ retryable: true, attemptCode: "stream_cut" });
      }
    });

    it("a binding that throws is a provider failure, not a crash", async () => {
      const ai = fakeAiBinding([{ kind: "throw", error: new Error("3040: Capacity temporarily exceeded") }]);
      const error = await failure(createProvider(MODEL, { ai }).stream(request(), signal()));
      expect(error.message).toMatch(/Capacity/);
    });

    it("is configured from the AI binding alone, and a session model reaches that binding", async () => {
      const ai = fakeAiBinding([{ kind: "text", pieces: ["ok"] }]);
      const parts = await collect(createConfiguredProvider({ AI: ai }, MODEL).stream(request(), signal()));
      expect(parts.at(-1)).toEqual({ type: "finish", reason: "stop" });
      expect(ai.calls).toHaveLength(1);
      // Without the binding it is refused at once, before anything is sent.
      const refused = await failure(createConfiguredProvider({}, MODEL).stream(request(), signal()));
      expect(refused.retryable).toBe(false);
    });
  });
}
