import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createProvider,
  type ModelConfig,
  type ModelPart,
  type ModelRequest,
  ProviderError,
  type ToolSpec,
} from "../../../src/model";
import { toProviderError } from "../../../src/model/errors";

type Handler = (req: IncomingMessage, res: ServerResponse, body: unknown) => void;
type Received = { path: string; headers: IncomingMessage["headers"]; body: unknown };

let server: Server;
let baseUrl: string;
let handler: Handler;
let received: Received[];
let closedConnections: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.on("close", () => closedConnections++);
      handler(req, res, body);
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
  closedConnections = 0;
});

const MODEL: ModelConfig = { provider: "openai", name: "fake-model", contextWindow: 32_000, maxOutputTokens: 1000 };

const READ_FILE: ToolSpec = {
  name: "read_file",
  description: "Read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
};
const LIST_FILES: ToolSpec = {
  name: "list_files",
  description: "List files",
  parameters: { type: "object", properties: { path: { type: "string" } }, additionalProperties: false },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: MODEL,
    messages: [
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "Read a.txt" },
    ],
    tools: [READ_FILE, LIST_FILES],
    ...overrides,
  };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

const USAGE_CHUNK = {
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "fake-model",
  choices: [],
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 64 } },
};

function sse(res: ServerResponse, events: unknown[], done = true): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  if (done) res.end("data: [DONE]\n\n");
}

function toolCallDelta(index: number, fields: { id?: string; name?: string; args?: string }): Record<string, unknown> {
  return {
    tool_calls: [
      {
        index,
        ...(fields.id ? { id: fields.id, type: "function" } : {}),
        function: { ...(fields.name ? { name: fields.name } : {}), arguments: fields.args ?? "" },
      },
    ],
  };
}

function provider() {
  return createProvider(MODEL, { baseUrl, apiKey: "sk-test" });
}

async function collect(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("openai-compatible adapter", () => {
  it("streams text, a tool call joined from pieces, usage with cached tokens and the finish", async () => {
    handler = (_req, res) =>
      sse(res, [
        chunk({ role: "assistant", content: "Let me " }),
        chunk({ content: "read " }),
        chunk({ content: "it." }),
        chunk(toolCallDelta(0, { id: "call_1", name: "read_file", args: "" })),
        chunk(toolCallDelta(0, { args: '{"pa' })),
        chunk(toolCallDelta(0, { args: 'th":"a.t' })),
        chunk(toolCallDelta(0, { args: 'xt"}' })),
        chunk({}, "tool_calls"),
        USAGE_CHUNK,
      ]);

    const parts = await collect(provider().stream(request(), new AbortController().signal));

    expect(parts).toEqual([
      { type: "text-delta", text: "Let me " },
      { type: "text-delta", text: "read " },
      { type: "text-delta", text: "it." },
      { type: "tool-call", callId: "call_1", name: "read_file", args: { path: "a.txt" } },
      { type: "usage", inputTokens: 120, outputTokens: 30, cachedInputTokens: 64 },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("sends a streamed Chat Completions request with usage, tools in order and the converted history", async () => {
    handler = (_req, res) => sse(res, [chunk({ content: "done" }, "stop"), USAGE_CHUNK]);
    const history = request({
      messages: [
        { role: "system", content: "You are a test agent." },
        { role: "user", content: "Read a.txt" },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "hmm" },
            { type: "text", text: "Reading." },
            { type: "tool-call", callId: "call_1", name: "read_file", args: { path: "a.txt" } },
          ],
        },
        {
          role: "tool",
          content: [
            { type: "tool-result", callId: "call_1", name: "read_file", status: "ok", output: { content: "hi" } },
          ],
        },
        { role: "user", content: "Thanks" },
      ],
      // Not alphabetical on purpose: the order must survive.
      tools: [READ_FILE, LIST_FILES],
    });

    await collect(provider().stream(history, new AbortController().signal));

    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call?.path).toBe("/v1/chat/completions");
    expect(call?.headers.authorization).toBe("Bearer sk-test");
    expect(call?.body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
      messages: [
        { role: "system", content: "You are a test agent." },
        { role: "user", content: "Read a.txt" },
        {
          role: "assistant",
          content: "Reading.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"content":"hi"}' },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "read_file", description: "Read a file", parameters: READ_FILE.parameters },
        },
        {
          type: "function",
          function: { name: "list_files", description: "List files", parameters: LIST_FILES.parameters },
        },
      ],
    });
    // Thinking is not echoed back to a Chat Completions endpoint.
    expect(JSON.stringify(call?.body)).not.toContain("hmm");
  });

  it("passes an unknown tool name and broken JSON arguments through as tool calls", async () => {
    handler = (_req, res) =>
      sse(res, [
        chunk(toolCallDelta(0, { id: "call_a", name: "no_such_tool", args: '{"x":1}' })),
        chunk(toolCallDelta(1, { id: "call_b", name: "read_file", args: '{"path": ' })),
        chunk({}, "tool_calls"),
        USAGE_CHUNK,
      ]);

    const parts = await collect(provider().stream(request(), new AbortController().signal));

    expect(parts.filter((p) => p.type === "tool-call")).toEqual([
      { type: "tool-call", callId: "call_a", name: "no_such_tool", args: { x: 1 } },
      { type: "tool-call", callId: "call_b", name: "read_file", args: '{"path": ' },
    ]);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
  });

  it("passes arguments that break the tool's schema through unvalidated", async () => {
    handler = (_req, res) =>
      sse(res, [
        chunk(toolCallDelta(0, { id: "call_c", name: "read_file", args: '{"path":42,"extra":true}' })),
        chunk({}, "tool_calls"),
      ]);

    const parts = await collect(provider().stream(request(), new AbortController().signal));

    expect(parts).toContainEqual({
      type: "tool-call",
      callId: "call_c",
      name: "read_file",
      args: { path: 42, extra: true },
    });
  });

  it("turns 429 with Retry-After into a retryable error that says when to retry", async () => {
    handler = (_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      res.end(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }));
    };

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000, code: "provider_error" });
    expect(error.message).toContain("slow down");
    expect(received).toHaveLength(1); // maxRetries: 0, the runtime owns retries
  });

  it("turns 400 into a non-retryable error and 503 into a retryable one", async () => {
    handler = (_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "bad tool schema" } }));
    };
    const bad = await failure(collect(provider().stream(request(), new AbortController().signal)));
    expect(bad).toMatchObject({ status: 400, retryable: false, retryAfterMs: undefined });

    handler = (_req, res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("upstream down");
    };
    const down = await failure(collect(provider().stream(request(), new AbortController().signal)));
    expect(down).toMatchObject({ status: 503, retryable: true });
  });

  it("turns an error chunk inside the stream into a ProviderError", async () => {
    handler = (_req, res) =>
      sse(res, [chunk({ content: "partial" }), { error: { message: "overloaded", type: "server_error", code: null } }]);

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ status: null, retryable: true });
    expect(error.message).toContain("overloaded");
  });

  it("treats a stream that ends without a finish reason as a retryable failure", async () => {
    handler = (_req, res) => sse(res, [chunk({ content: "cut" })]);

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ status: null, retryable: true });
  });

  it("a connection lost mid-stream (the SDK's 200 'Failed to process successful response') is retryable, code network", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(chunk({ content: "partial" }))}\n\n`);
      setTimeout(() => res.socket?.destroy(), 20);
    };

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ retryable: true, attemptCode: "network" });
    expect(error.message).not.toMatch(/^200/);
  });

  it("invalid_request_error inside the stream is not retryable (the SDK's own verdict)", async () => {
    handler = (_req, res) =>
      sse(res, [
        chunk({ content: "x" }),
        { error: { message: "bad schema", type: "invalid_request_error", code: null } },
      ]);

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ retryable: false, attemptCode: "provider_error" });
  });

  it("a stream that ends without a finish reason is a stream_cut", async () => {
    handler = (_req, res) => sse(res, [chunk({ content: "cut" })]);

    const error = await failure(collect(provider().stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ retryable: true, attemptCode: "stream_cut" });
  });

  it("turns a refused connection into a retryable error with no status", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const p = createProvider(MODEL, { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "k" });
    const error = await failure(collect(p.stream(request(), new AbortController().signal)));

    expect(error).toMatchObject({ status: null, retryable: true });
  });

  it("stops mid-stream when the signal fires and closes the upstream connection", async () => {
    handler = (_req, res) => sse(res, [chunk({ content: "first" })], false); // then stall
    const controller = new AbortController();
    const seen: ModelPart[] = [];
    const started = Date.now();

    const outcome = await (async () => {
      for await (const part of provider().stream(request(), controller.signal)) {
        seen.push(part);
        controller.abort();
      }
    })().then(
      () => "completed",
      (e: unknown) => e,
    );

    expect(seen).toEqual([{ type: "text-delta", text: "first" }]);
    expect(outcome).toBeInstanceOf(DOMException);
    expect((outcome as DOMException).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(1000);
    await expect.poll(() => closedConnections).toBe(1);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    handler = (_req, res) => sse(res, [chunk({ content: "x" }, "stop")]);
    const controller = new AbortController();
    controller.abort();

    await expect(collect(provider().stream(request(), controller.signal))).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(received).toHaveLength(0);
  });
});

describe("an unreachable provider (issue 17 item 12)", () => {
  it("a closed port is a retryable `network` failure whose message names the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const p = createProvider(MODEL, { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "sk-test" });
    const error = await failure(collect(p.stream(request(), new AbortController().signal)));
    expect(error).toMatchObject({ retryable: true, attemptCode: "network" });
    expect(error.message).toMatch(/ECONNREFUSED|connect/i);
  });

  it("workerd's own fetch failure (`Network connection lost.`, marked retryable) is `network`, not a bug", () => {
    const workerd = Object.assign(new Error("Network connection lost."), { retryable: true, remote: true });
    const error = toProviderError(workerd) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, attemptCode: "network" });
    expect(error.message).toBe("could not reach the model provider: Network connection lost.");
    // An error of our own stays a bug.
    const bug = new TypeError("cannot read properties of undefined");
    expect(toProviderError(bug)).toBe(bug);
  });
});
