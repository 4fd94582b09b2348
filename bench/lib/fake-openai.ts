/**
 * A scriptable fake of an OpenAI-compatible Chat Completions endpoint for e2e tests.
 *
 * `POST {url}/chat/completions` answers from a script: streamed `chat.completion.chunk`
 * SSE frames (text in a few chunks, tool calls with their arguments in 2–3 pieces, a usage
 * chunk when `stream_options.include_usage` is set, then `data: [DONE]`), or an error status
 * with an optional Retry-After. Every request is recorded so tests can assert on what the
 * runtime actually sent (messages, tools, sizes, whether the client aborted).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ChatContentPart = { type: string; text?: string; [k: string]: unknown };
export type ChatToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
export type ChatMessage = {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | ChatContentPart[] | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  name?: string;
  [k: string]: unknown;
};
export type ChatTool = { type: "function"; function: { name: string; description?: string; parameters?: unknown } };
export type ChatRequest = {
  model?: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [k: string]: unknown;
};

/** One scripted answer. With neither `text` nor `toolCalls` the model answers an empty text. */
export type Reply = {
  text?: string;
  /** `args` is JSON-encoded unless it is already a string (so invalid JSON can be scripted). */
  toolCalls?: { name: string; args: unknown; id?: string }[];
  /** A non-200 status answers with an OpenAI-style error body instead of a stream. */
  status?: number;
  /** Seconds, sent as the `Retry-After` header (with an error `status`, default 429). */
  retryAfter?: number;
  /** Wait this long before sending the response headers. */
  delayMs?: number;
  /** Wait this long between SSE frames. */
  chunkDelayMs?: number;
  /** Send this many SSE frames (the role frame counts), then keep the connection open without ending it. */
  hangAfterChunks?: number;
  /** Send this many SSE frames, then destroy the socket (a lost connection mid-stream). */
  dropAfterChunks?: number;
  /** Override the usage numbers; by default they are estimated from the request and answer sizes. */
  usage?: { promptTokens?: number; completionTokens?: number; cachedTokens?: number };
  finishReason?: string;
};

export type ReplyHandler = (body: ChatRequest, index: number) => Reply | Promise<Reply>;
/** A queue (request `i` gets `script[i]`) or a function of the request. */
export type Script = Reply[] | ReplyHandler;

export type RecordedRequest = {
  index: number;
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (null when it was not JSON). */
  body: ChatRequest;
  /** Request body size in bytes. */
  bytes: number;
  at: number;
  reply?: Reply;
  /** The usage the answer reported (also when the stream was cut before the usage chunk). */
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  /** The client closed the connection before the answer was complete (e.g. `/stop`). */
  aborted: boolean;
  /** The whole answer was written. */
  completed: boolean;
};

export type FakeOpenAI = {
  /** Base URL, ending in `/v1`: pass it as `MODEL_BASE_URL`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests to `/chat/completions` only (the usual thing to assert on). */
  chatRequests(): RecordedRequest[];
  maxRequestBytes(): number;
  /** Replace the script; the request index keeps counting. */
  setScript(script: Script): void;
  /** Resolves when at least `n` chat requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Plain text of a message's content (string or text parts). */
export function messageText(m: ChatMessage | undefined): string {
  if (!m || m.content == null) return "";
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

/** Split into `n` roughly equal pieces without cutting a code point. */
function splitPieces(text: string, n: number): string[] {
  const cps = Array.from(text);
  const count = Math.max(1, Math.min(n, cps.length));
  const size = Math.ceil(cps.length / count);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  if (status === 401) return "authentication_error";
  return "invalid_request_error";
}

/** Start the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeOpenAI(script: Script): Promise<FakeOpenAI> {
  let current: Script = script;
  const requests: RecordedRequest[] = [];
  // Rough prompt-cache simulation: the longest prefix shared with an earlier request.
  const prefixes: string[] = [];
  const waiters = new Set<() => void>();
  const chatRequests = () => requests.filter((r) => r.path.endsWith("/chat/completions"));

  async function pickReply(body: ChatRequest, index: number): Promise<Reply> {
    if (typeof current === "function") return current(body, index);
    const r = current[index];
    if (!r) return { status: 400, text: `fake-openai: script exhausted at request ${index}` };
    return r;
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req).catch(() => Buffer.alloc(0));
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let body: ChatRequest;
    try {
      body = JSON.parse(raw.toString("utf8")) as ChatRequest;
    } catch {
      body = null as unknown as ChatRequest;
    }
    const rec: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "",
      path,
      headers: req.headers,
      body,
      bytes: raw.length,
      at: Date.now(),
      aborted: false,
      completed: false,
    };
    requests.push(rec);
    res.on("close", () => {
      if (!rec.completed) rec.aborted = true;
    });

    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } }));
      rec.completed = true;
      return;
    }
    const chatIndex = chatRequests().length - 1;
    for (const w of waiters) w();
    if (!body || !Array.isArray(body.messages)) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "messages: expected array", type: "invalid_request_error" } }));
      rec.completed = true;
      return;
    }

    let reply: Reply;
    try {
      reply = await pickReply(body, chatIndex);
    } catch (err) {
      reply = { status: 500, text: `fake-openai: script threw: ${String(err)}` };
    }
    rec.reply = reply;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;

    const status = reply.status ?? (reply.retryAfter !== undefined ? 429 : 200);
    if (status !== 200) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
      res.writeHead(status, headers);
      res.end(
        JSON.stringify({
          error: { message: reply.text ?? `fake error ${status}`, type: errorType(status), code: null, param: null },
        }),
      );
      rec.completed = true;
      return;
    }

    const id = `chatcmpl-fake-${chatIndex}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "fake-model";
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${chatIndex}_${i}`,
      name: c.name,
      args: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}),
    }));
    const text = reply.text ?? "";
    const finish = reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");

    const prefix = JSON.stringify(body.tools ?? []) + JSON.stringify(body.messages);
    const shared = prefixes.reduce((m, p) => Math.max(m, commonPrefixLength(p, prefix)), 0);
    prefixes.push(prefix);
    const promptTokens = reply.usage?.promptTokens ?? Math.ceil(raw.length / 4);
    const completionTokens =
      reply.usage?.completionTokens ??
      Math.max(1, Math.ceil((text.length + toolCalls.reduce((n, c) => n + c.name.length + c.args.length, 0)) / 4));
    const cachedTokens = reply.usage?.cachedTokens ?? Math.min(promptTokens, Math.floor(shared / 4));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens },
    };
    rec.usage = usage;

    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: text || (toolCalls.length ? null : ""),
                ...(toolCalls.length
                  ? {
                      tool_calls: toolCalls.map((c) => ({
                        id: c.id,
                        type: "function",
                        function: { name: c.name, arguments: c.args },
                      })),
                    }
                  : {}),
              },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      );
      rec.completed = true;
      return;
    }

    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        system_fingerprint: null,
        choices,
        ...extra,
      });
    const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
      frame([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);

    const frames: string[] = [delta({ role: "assistant", content: "" })];
    if (text) for (const piece of splitPieces(text, 4)) frames.push(delta({ content: piece }));
    toolCalls.forEach((c, i) => {
      frames.push(
        delta({ tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
      );
      for (const piece of splitPieces(c.args, 3))
        frames.push(delta({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    frames.push(delta({}, finish));
    if (body.stream_options?.include_usage) frames.push(frame([], { usage }));
    frames.push("[DONE]");

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    for (const [n, f] of frames.entries()) {
      if (reply.hangAfterChunks !== undefined && n >= reply.hangAfterChunks) return; // leave it open
      if (reply.dropAfterChunks !== undefined && n >= reply.dropAfterChunks) {
        res.socket?.destroy();
        return;
      }
      if (res.destroyed) return;
      res.write(`data: ${f}\n\n`);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    rec.completed = true;
    res.end();
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests,
    maxRequestBytes: () => requests.reduce((m, r) => Math.max(m, r.bytes), 0),
    setScript(s) {
      current = s;
    },
    waitForRequests(n, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (chatRequests().length >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(chatRequests());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake-openai: ${chatRequests().length} of ${n} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// scriptedAgent: answers that depend on the conversation, not on how many requests arrived.

export type AgentStepContext = {
  body: ChatRequest;
  index: number;
  /** Text of the last user message. */
  lastUserText: string;
  /** Tool-result messages after the last user message. */
  toolResults: ChatMessage[];
};
export type AgentSteps = Reply[] | ((step: number, ctx: AgentStepContext) => Reply);

/**
 * A compaction request (docs/API.md §1) sends no tools, or ends with a user message
 * mentioning "summary".
 */
export function isCompactionRequest(body: ChatRequest): boolean {
  const last = body.messages.at(-1);
  if (last?.role === "user" && /summary/i.test(messageText(last))) return true;
  if (!body.tools?.length) {
    return body.messages.some((m) => (m.role === "system" || m.role === "user") && /summar/i.test(messageText(m)));
  }
  return false;
}

export const DEFAULT_SUMMARY = [
  "## Goal and deliverable",
  "Continue the user's task.",
  "## Progress and next steps",
  "Work so far is summarized by the fake model.",
  "## Constraints, decisions and facts",
  "None recorded.",
  "## Open items",
  "None.",
  "## Key files and event references",
  "None.",
].join("\n");

/**
 * A handler whose step is the number of tool results after the last user message,
 * so a request re-issued after a retry or a recovery gets the same answer as the first.
 * Compaction requests get `summary` (pass `summary: false` to route them to the steps).
 * Past the end of the steps it answers 400 "script exhausted" so that a test fails fast.
 */
export function scriptedAgent(steps: AgentSteps, opts: { summary?: string | false } = {}): ReplyHandler {
  const summary = opts.summary === undefined ? DEFAULT_SUMMARY : opts.summary;
  return (body, index) => {
    if (summary !== false && isCompactionRequest(body)) return { text: summary };
    const msgs = body.messages;
    let lastUser = -1;
    for (let i = msgs.length - 1; i >= 0; i--) {
      if (msgs[i]?.role === "user") {
        lastUser = i;
        break;
      }
    }
    const toolResults = msgs.slice(lastUser + 1).filter((m) => m.role === "tool");
    const step = toolResults.length;
    const ctx: AgentStepContext = { body, index, lastUserText: messageText(msgs[lastUser]), toolResults };
    if (typeof steps === "function") return steps(step, ctx);
    return steps[step] ?? { status: 400, text: `fake-openai: scripted agent has no step ${step}` };
  };
}
