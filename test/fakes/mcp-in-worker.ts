/**
 * An MCP server inside the test's own Worker: the SDK's `Server` over its web-standard Streamable
 * HTTP transport (stateless), reached through a `fetch` function, for `test/do` where no process
 * can be started. Tools and their answers are the test's; every call is counted with its key.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export type FakeTool = {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean };
  run?: (args: Record<string, unknown>) => Promise<unknown> | unknown;
};

export type InWorkerMcp = {
  fetch: typeof fetch;
  calls: { tool: string; key: string | null; args: unknown }[];
  /** Requests of each JSON-RPC method. */
  requests: string[];
  tools: FakeTool[];
  /** While true every request answers 503. */
  down: boolean;
};

export function inWorkerMcp(tools: FakeTool[]): InWorkerMcp {
  const self: InWorkerMcp = {
    calls: [],
    requests: [],
    tools,
    down: false,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (self.down) return new Response("down", { status: 503 });
      if (request.method === "POST") {
        const body = (await request.clone().json()) as { method?: string };
        self.requests.push(body.method ?? "");
      }
      const server = new Server({ name: "in-worker", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: self.tools.map((t) => ({
          name: t.name,
          description: t.description ?? `the ${t.name} tool`,
          inputSchema: t.inputSchema ?? { type: "object", properties: {} },
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
      }));
      server.setRequestHandler(CallToolRequestSchema, async (req) => {
        const key = (req.params._meta?.["io.highwater/idempotency-key"] as string | undefined) ?? null;
        self.calls.push({ tool: req.params.name, key, args: req.params.arguments });
        const tool = self.tools.find((t) => t.name === req.params.name);
        const out = tool?.run ? await tool.run(req.params.arguments ?? {}) : `${req.params.name} done`;
        return typeof out === "string" ? { content: [{ type: "text", text: out }] } : (out as never);
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      return transport.handleRequest(request);
    }) as typeof fetch,
  };
  return self;
}
