/**
 * An MCP server with tasks (2025-11-25 Tasks: `execution.taskSupport`, a `CreateTaskResult` for a
 * task-augmented `tools/call`, `tasks/get`, `tasks/result`, `tasks/cancel`) on the v1 SDK's `Server`
 * over its web-standard transport, sessionful (one transport per MCP session, as a deployed server
 * keeps them), its tasks in this object so that every session sees them. A fetch function, for
 * test/do and behind a Node HTTP server. The test decides when a task completes.
 *
 * Tools: `report` (a task that works until the test completes it), `quick` (answers at once) and
 * `approve` (a task that asks a person first: it is `input_required`, and `tasks/result` puts its
 * question, `elicitation/create` with the related task in `_meta`, over its stream; the answer
 * completes the task; a stream dropped unanswered leaves it asking, so the next `tasks/result`
 * asks again).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ElicitResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { CONFIRM_FORM } from "./mcp2-server";

type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
type FakeTask = { taskId: string; status: TaskStatus; result?: { content: { type: "text"; text: string }[] } };

export type McpTaskServer = {
  fetch: typeof fetch;
  calls: { tool: string; key: string | null; task: boolean }[];
  /** Requests of each JSON-RPC method. */
  requests: string[];
  tasks: Map<string, FakeTask>;
  /** Every answer a task's question got, with its task. */
  answers: { taskId: string; action: string; content?: unknown }[];
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
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const open = async () => {
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
        {
          name: "approve",
          description: "does something once a person approves (slowly)",
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
      const status = req.params.name === "approve" ? "input_required" : "working";
      const task: FakeTask = { taskId: `task-${self.tasks.size + 1}`, status };
      self.tasks.set(task.taskId, task);
      return { task: wire(task) } as never;
    });
    server.setRequestHandler(GetTaskRequestSchema, async (req) => wire(known(req.params.taskId)) as never);
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (req, extra) => {
      const t = known(req.params.taskId);
      if (t.status === "input_required") {
        const answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: `Approve ${t.taskId}?`,
              requestedSchema: CONFIRM_FORM as never,
              _meta: { [RELATED_TASK_META_KEY]: { taskId: t.taskId } },
            },
          },
          ElicitResultSchema,
        );
        self.answers.push({ taskId: t.taskId, action: answer.action, content: answer.content });
        t.status = "completed";
        t.result = { content: [{ type: "text", text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }] };
      }
      return t.result as never;
    });
    server.setRequestHandler(CancelTaskRequestSchema, async (req) => {
      const t = known(req.params.taskId);
      t.status = "cancelled";
      return wire(t) as never;
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
  const self: McpTaskServer = {
    calls: [],
    requests: [],
    tasks: new Map(),
    answers: [],
    complete(taskId, text) {
      const t = known(taskId);
      t.status = "completed";
      t.result = { content: [{ type: "text", text }] };
    },
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "POST") {
        const body = (await request.clone().json()) as { method?: string };
        if (body.method) self.requests.push(body.method);
      }
      const id = request.headers.get("mcp-session-id");
      const transport = id ? transports.get(id) : await open();
      if (!transport) return new Response("unknown session", { status: 404 });
      return transport.handleRequest(request);
    }) as typeof fetch,
  };
  return self;
}
