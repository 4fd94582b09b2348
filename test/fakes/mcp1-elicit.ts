/**
 * A 2025-11-25-only MCP server on the v1 SDK, sessionful (one transport kept across requests, as a
 * deployed server keeps its sessions), whose `confirm` tool asks a person over the open stream
 * (`elicitInput`) before it answers. A fetch function, for test/do and for a Node HTTP server.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CONFIRM_FORM } from "./mcp2-server";

export type Mcp1Elicit = {
  fetch: typeof fetch;
  calls: { tool: string; key: string | null; args: unknown; answer?: unknown }[];
  /** The method of every JSON-RPC request. */
  requests: string[];
};

export function mcp1Elicit(): Mcp1Elicit {
  const self: Mcp1Elicit = { calls: [], requests: [], fetch: null as never };
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const open = async () => {
    const server = new Server({ name: "mcp1", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: "confirm",
          description: "Do something once a person approves",
          inputSchema: { type: "object", properties: { what: { type: "string" } } },
        },
        {
          name: "peek",
          description: "Read something once a person says which",
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const key = (req.params._meta?.["io.highwater/idempotency-key"] as string | undefined) ?? null;
      const args = req.params.arguments ?? {};
      const entry: Mcp1Elicit["calls"][number] = { tool: req.params.name, key, args };
      self.calls.push(entry);
      const answer = await server.elicitInput({
        message: `Approve ${String((args as { what?: unknown }).what ?? req.params.name)}?`,
        requestedSchema: CONFIRM_FORM as never,
      });
      entry.answer = answer;
      return { content: [{ type: "text", text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }] };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    await server.connect(transport);
    return transport;
  };
  self.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const body = (await request.clone().json()) as { method?: string };
      if (body.method) self.requests.push(body.method);
    }
    const id = request.headers.get("mcp-session-id");
    const transport = id ? transports.get(id) : await open();
    if (!transport) return new Response("unknown session", { status: 404 });
    return transport.handleRequest(request);
  }) as typeof fetch;
  return self;
}
