import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createProvider, type ModelConfig, type ModelPart, type ModelRequest, ProviderError } from "../../../src/model";

let server: Server;
let baseUrl: string;
let reply: (res: ServerResponse) => void;
let received: { path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> }[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
});

const MODEL: ModelConfig = {
  provider: "anthropic",
  name: "claude-test",
  contextWindow: 200_000,
  maxOutputTokens: 4096,
};

function events(res: ServerResponse, list: Record<string, unknown>[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of list) res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

const MESSAGE_START = {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 80, cache_creation_input_tokens: 5 },
  },
};

const ANSWER = [
  MESSAGE_START,
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Need the file." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-abc" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Reading" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: " it." } },
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} },
  },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"path":' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"a.txt"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 25 } },
  { type: "message_stop" },
];

const REQUEST: ModelRequest = {
  model: MODEL,
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Read a.txt" },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "Earlier thought", signature: "sig-old" },
        { type: "thinking", text: "unsigned, dropped" },
        { type: "tool-call", callId: "toolu_0", name: "read_file", args: { path: "a.txt" } },
        { type: "tool-call", callId: "toolu_x", name: "read_file", args: '{"path": ' },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", callId: "toolu_0", name: "read_file", status: "ok", output: { content: "hi" } },
        { type: "tool-result", callId: "toolu_x", name: "read_file", status: "error", output: { error: "bad args" } },
      ],
    },
  ],
  tools: [
    {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
};

async function collect(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe("anthropic adapter", () => {
  it("streams thinking with its signature, text, a tool call and total input usage", async () => {
    reply = (res) => events(res, ANSWER);
    const provider = createProvider(MODEL, { baseUrl, apiKey: "ak-test" });

    const parts = await collect(provider.stream(REQUEST, new AbortController().signal));

    expect(parts).toEqual([
      { type: "thinking-delta", text: "Need the file." },
      { type: "thinking-delta", text: "", signature: "sig-abc" },
      { type: "text-delta", text: "Reading" },
      { type: "text-delta", text: " it." },
      { type: "tool-call", callId: "toolu_1", name: "read_file", args: { path: "a.txt" } },
      // Anthropic reports uncached, cache-read and cache-write input apart; the port wants the total.
      { type: "usage", inputTokens: 95, outputTokens: 25, cachedInputTokens: 80 },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("sends signed thinking back, object tool input, error results and cache breakpoints", async () => {
    reply = (res) => events(res, ANSWER);
    const provider = createProvider(MODEL, { baseUrl, apiKey: "ak-test" });

    await collect(provider.stream(REQUEST, new AbortController().signal));

    const [call] = received;
    expect(call?.path).toBe("/v1/messages");
    expect(call?.headers["x-api-key"]).toBe("ak-test");
    expect(call?.body).toMatchObject({
      model: "claude-test",
      max_tokens: 4096,
      stream: true,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Earlier thought", signature: "sig-old" },
            { type: "tool_use", id: "toolu_0", name: "read_file", input: { path: "a.txt" } },
            { type: "tool_use", id: "toolu_x", name: "read_file", input: { invalid_arguments: '{"path": ' } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_0", content: '{"content":"hi"}' },
            {
              type: "tool_result",
              tool_use_id: "toolu_x",
              content: '{"error":"bad args"}',
              is_error: true,
              cache_control: { type: "ephemeral" },
            },
          ],
        },
      ],
      tools: [{ name: "read_file", description: "Read a file" }],
    });
    expect(JSON.stringify(call?.body)).not.toContain("unsigned, dropped");
  });

  it("turns an overloaded error event into a retryable ProviderError", async () => {
    reply = (res) =>
      events(res, [MESSAGE_START, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
    const provider = createProvider(MODEL, { baseUrl, apiKey: "ak-test" });

    const error = await collect(provider.stream(REQUEST, new AbortController().signal)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: null, retryable: true });
    expect((error as Error).message).toContain("Overloaded");
  });

  it("a stream that ends before message_stop is a failed attempt (stream_cut), never an answer", async () => {
    reply = (res) =>
      events(
        res,
        ANSWER.filter((e) => (e as { type?: string }).type !== "message_stop"),
      );
    const provider = createProvider(MODEL, { baseUrl, apiKey: "ak-test" });

    const error = await collect(provider.stream(REQUEST, new AbortController().signal)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, attemptCode: "stream_cut" });
  });

  it("fails without a request when no API key is configured", async () => {
    reply = (res) => events(res, ANSWER);
    const provider = createProvider(MODEL, { baseUrl });

    const error = await collect(provider.stream(REQUEST, new AbortController().signal)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: null, retryable: false });
    expect(received).toHaveLength(0);
  });
});
