/**
 * An MCP server with tasks (2025-11-25 Tasks: `execution.taskSupport`, a `CreateTaskResult` for a
 * task-augmented `tools/call`, `tasks/get`, `tasks/result`, `tasks/cancel`) inside the test's own
 * Worker: the SDK's `Server` over its web-standard transport (stateless), its tasks in this object
 * so that every request sees them. The test decides when a task completes.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

type TaskStatus = "working" | "completed" | "failed" | "cancelled";
type FakeTask = { taskId: string; status: TaskStatus; result?: { content: { type: "text"; text: string }[] } };

export type McpTaskServer = {
  fetch: typeof fetch;
  calls: { tool: string; key: string | null; task: boolean }[];
  /** Requests of each JSON-RPC method. */
  requests: string[];
  tasks: Map<string, FakeTask>;
  complete(taskId: string, text: string): void;
};

export function mcpTaskServer(): McpTaskServer {
  const now = new Date(0).toISOString();
  const wire = (t: FakeTask) => ({ taskId: t.taskId, status: t.status, ttl: null, createdAt: now, lastUpdatedAt: now });
  const known = (taskId: string) => {
    const t = self.tasks.get(taskId);
    if (!t) throw new Error(`no task ${taskId}`);
    return t;
  };
  const self: McpTaskServer = {
    calls: [],
    requests: [],
    tasks: new Map(),
    complete(taskId, text) {
      const t = known(taskId);
      t.status = "completed";
      t.result = { content: [{ type: "text", text }] };
    },
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "POST") {
        const body = (await request.clone().json()) as { method?: string };
        self.requests.push(body.method ?? "");
      }
      const server = new Server(
        { name: "tasks", version: "1" },
        { capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } } },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          {
            name: "report",
            description: "builds a report (slowly)",
            inputSchema: { type: "object", properties: {} },
            execution: { taskSupport: "required" },
          },
          { name: "quick", description: "answers at once", inputSchema: { type: "object", properties: {} } },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (req) => {
        const key = (req.params._meta?.["io.highwater/idempotency-key"] as string | undefined) ?? null;
        self.calls.push({ tool: req.params.name, key, task: !!req.params.task });
        if (!req.params.task) return { content: [{ type: "text", text: `${req.params.name} done` }] };
        const task: FakeTask = { taskId: `task-${self.tasks.size + 1}`, status: "working" };
        self.tasks.set(task.taskId, task);
        return { task: wire(task) } as never;
      });
      server.setRequestHandler(GetTaskRequestSchema, async (req) => wire(known(req.params.taskId)) as never);
      server.setRequestHandler(GetTaskPayloadRequestSchema, async (req) => known(req.params.taskId).result as never);
      server.setRequestHandler(CancelTaskRequestSchema, async (req) => {
        const t = known(req.params.taskId);
        t.status = "cancelled";
        return wire(t) as never;
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
