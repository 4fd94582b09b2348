#!/usr/bin/env node
/**
 * A real MCP server for tests: the SDK's `McpServer` over Streamable HTTP (stateless, one server
 * per request) on 127.0.0.1, port 0 unless `PORT` is set; prints `MCP_FAKE_PORT=<port>`.
 *
 * Tools (each takes `sleepMs` to stay in flight, and counts the call on arrival):
 *   lookup  { id }        readOnlyHint                → "order <id>: shipped"
 *   upsert  { id, value } idempotentHint              → one effect per idempotency key
 *   send    { to, text }  no hints (a write)          → one effect per call
 *   sleep   { ms }        readOnlyHint                → answers after ms
 * `tools/list` pages 2 tools at a time (`nextCursor`).
 *
 * Control (plain HTTP, JSON):
 *   GET  /calls  → { calls: [{ tool, key, args }], effects: { upsert: n, send: n } }
 *   POST /mode   { mode: "normal" | "garbage" | "huge" | "many" | "down" | "extra" | "badschema"
 *                       | "sse" | "sse-huge" | "sse-cut" } (see `mode` below)
 * The `sse*` modes answer requests over SSE instead of JSON: `sse-huge` with an 11 MiB text
 * answer (as `huge`), `sse-cut` by counting a `tools/call` and cutting its answer off mid-event.
 *   POST /reset  clears calls and effects, mode normal
 */
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const PAGE_SIZE = 2;
const state = { calls: [], upserts: new Map(), sends: 0, mode: "normal" };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const keyOf = (extra) => extra?._meta?.["io.highwater/idempotency-key"] ?? null;

function record(tool, args, extra) {
  state.calls.push({ tool, key: keyOf(extra), args });
}

function text(t) {
  if (state.mode === "huge" || state.mode === "sse-huge")
    return { content: [{ type: "text", text: "x".repeat(11 * 1024 * 1024) }] };
  return { content: [{ type: "text", text: t }] };
}

function buildServer() {
  const server = new McpServer({ name: "highwater-fake", version: "1.0.0" });
  server.registerTool(
    "lookup",
    {
      description: "Look up an order by id",
      inputSchema: { id: z.string().describe("the order id"), sleepMs: z.number().optional() },
      annotations: { readOnlyHint: true },
    },
    async (args, extra) => {
      record("lookup", args, extra);
      if (args.sleepMs) await sleep(args.sleepMs);
      return {
        ...text(`order ${args.id}: shipped`),
        structuredContent: state.mode.endsWith("huge") ? undefined : { id: args.id, status: "shipped" },
      };
    },
  );
  server.registerTool(
    "upsert",
    {
      description: "Set a value by id (keyed: a repeated key changes nothing)",
      inputSchema: { id: z.string(), value: z.string(), sleepMs: z.number().optional() },
      annotations: { idempotentHint: true },
    },
    async (args, extra) => {
      record("upsert", args, extra);
      if (args.sleepMs) await sleep(args.sleepMs);
      const key = keyOf(extra) ?? `nokey:${state.calls.length}`;
      if (!state.upserts.has(key)) state.upserts.set(key, args.value);
      return text(`set ${args.id}=${state.upserts.get(key)}`);
    },
  );
  server.registerTool(
    "send",
    {
      description: "Send a message (not idempotent)",
      inputSchema: { to: z.string(), text: z.string(), sleepMs: z.number().optional() },
    },
    async (args, extra) => {
      record("send", args, extra);
      if (args.sleepMs) await sleep(args.sleepMs);
      state.sends++;
      return text(`sent #${state.sends} to ${args.to}`);
    },
  );
  server.registerTool(
    "sleep",
    {
      description: "Answer after ms milliseconds",
      inputSchema: { ms: z.number() },
      annotations: { readOnlyHint: true },
    },
    async (args, extra) => {
      record("sleep", args, extra);
      await sleep(args.ms);
      return text(`slept ${args.ms}`);
    },
  );
  if (state.mode === "extra")
    server.registerTool("extra", { description: "A tool that appeared later", inputSchema: {} }, async () =>
      text("extra"),
    );
  // tools/list in pages of PAGE_SIZE (the SDK's own handler lists all at once).
  const handlers = server.server._requestHandlers;
  const listAll = handlers.get("tools/list");
  handlers.set("tools/list", async (request, extra) => {
    let tools = (await listAll(request, extra)).tools;
    if (state.mode === "many")
      tools = Array.from({ length: 10_000 }, (_, i) => ({
        name: `t${i}`,
        description: "one of many",
        inputSchema: { type: "object", properties: {} },
      }));
    if (state.mode === "badschema") tools = [...tools, { name: "odd", inputSchema: { type: "string" } }];
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + (state.mode === "many" ? 500 : PAGE_SIZE));
    const next = start + page.length;
    return { tools: page, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** Counts the call, then sends the first half of its answer's SSE event and drops the connection. */
function cutAnswer(res, body) {
  const { name, arguments: args, _meta } = body.params ?? {};
  record(name, args ?? {}, { _meta });
  if (name === "send") state.sends++;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: "y".repeat(4096) }] } })}\n\n`;
  res.write(event.slice(0, event.length >> 1), () => res.destroy());
}

const http = createServer(async (req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  try {
    if (path === "/calls") {
      return json(res, 200, { calls: state.calls, effects: { upsert: state.upserts.size, send: state.sends } });
    }
    if (path === "/reset") {
      Object.assign(state, { calls: [], upserts: new Map(), sends: 0, mode: "normal" });
      return json(res, 200, { ok: true });
    }
    if (path === "/mode") {
      state.mode = JSON.parse(await readBody(req)).mode;
      return json(res, 200, { mode: state.mode });
    }
    if (path !== "/mcp") return json(res, 404, { error: "not found" });
    if (state.mode === "down") return json(res, 503, { error: "down" });
    if (req.method !== "POST") return json(res, 405, { error: "method not allowed" });
    const body = JSON.parse(await readBody(req));
    if (state.mode === "garbage" && body.method !== "initialize" && body.method !== "notifications/initialized") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end('{"this is": "not json-rpc"');
    }
    if (state.mode === "sse-cut" && body.method === "tools/call") return cutAnswer(res, body);
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !state.mode.startsWith("sse"),
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (err) {
    if (!res.headersSent) json(res, 500, { error: String(err) });
  }
});

http.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`MCP_FAKE_PORT=${http.address().port}`);
});
