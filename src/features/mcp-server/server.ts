/**
 * The MCP server of one request (docs/API.md#a-session-as-an-mcp-server): its six tools and the
 * Tasks extension's `tasks/get` and `tasks/cancel`, acting for one principal through a `Port`
 * (the same directory and session-object calls the HTTP routes make). A refused call (unknown or
 * someone else's session, bad input) is a tool error (`isError`) and appends nothing.
 */
import { McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ApiError } from "../../contract";
import type { Session } from "../../projections";
import type { TaskState } from "./task-state";
import {
  answerResult,
  declaresTasks,
  detailedTask,
  parseTaskId,
  TASKS_EXTENSION,
  type TaskRef,
  taskIdOf,
} from "./tasks";

/** What the tools act through, for the caller's principal; each throws `ApiError` when refused. */
export type Port = {
  start(input: StartInput, key: string | undefined): Promise<TaskRef>;
  send(sessionId: string, text: string, key: string | undefined): Promise<TaskRef>;
  session(sessionId: string): Promise<Session>;
  transcript(sessionId: string, limit: number): Promise<unknown>;
  decide(
    sessionId: string,
    requestId: string,
    body: { decision: "approve" | "reject"; reason?: string },
  ): Promise<Session>;
  list(limit: number, before: string | undefined): Promise<unknown>;
  task(ref: TaskRef): Promise<TaskState>;
  /** Stops the turn of `ref` if it is still the open one. */
  cancel(ref: TaskRef): Promise<void>;
  /** Waits until the turn closes or `ms` pass; resolves the last state read. */
  settle(ref: TaskRef, ms: number): Promise<TaskState>;
};

export const IDEMPOTENCY_META = "io.highwater/idempotency-key";
/** How long a call without the Tasks extension waits for the turn to close. */
export const SYNC_WAIT_MS = 60_000;

const SessionId = z.string().regex(/^[0-9a-f]{64}$/, "a session id");
const Text = z.string().min(1).max(262_144);
const Model = z.strictObject({
  provider: z.enum(["openai", "anthropic", "workers-ai", "demo"]).optional(),
  name: z.string().min(1).max(200).optional(),
});
export type StartInput = { text: string; title?: string; model?: z.infer<typeof Model> };

function json(value: unknown) {
  return { content: [{ type: "text" as const, text: JSON.stringify(value) }], structuredContent: value as never };
}

function toolError(err: unknown) {
  if (!(err instanceof ApiError)) throw err;
  const error = { code: err.code, message: err.message };
  return {
    content: [{ type: "text" as const, text: `${err.code}: ${err.message}` }],
    structuredContent: { error },
    isError: true,
  };
}

async function guarded<T>(fn: () => Promise<T>) {
  try {
    return await fn();
  } catch (err) {
    return toolError(err);
  }
}

function keyOf(meta: Record<string, unknown> | undefined): string | undefined {
  const key = meta?.[IDEMPOTENCY_META];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key.length < 1 || key.length > 200)
    throw new ApiError("bad_request", `_meta["${IDEMPOTENCY_META}"]: a string of 1–200 characters`);
  return key;
}

type Ctx = { mcpReq: { _meta?: Record<string, unknown>; envelope?: unknown } };

/**
 * A turn-starting call: with the Tasks extension, a task at once; else the turn's answer if it
 * closes within `SYNC_WAIT_MS`, or a result naming the session and saying the turn goes on.
 */
async function turnCall(port: Port, ctx: Ctx, begin: (key: string | undefined) => Promise<TaskRef>) {
  const ref = await begin(keyOf(ctx.mcpReq._meta));
  if (declaresTasks(ctx.mcpReq.envelope)) {
    const state = await port.task(ref);
    const { result: _r, error: _e, inputRequests: _i, ...task } = detailedTask(ref, state) as Record<string, unknown>;
    return { resultType: "task", ...task } as never;
  }
  const state = await port.settle(ref, SYNC_WAIT_MS);
  if (state.state === "completed") return answerResult(ref, state.answer);
  const still = {
    sessionId: ref.sessionId,
    turnId: ref.turnId,
    taskId: taskIdOf(ref),
    status: state.state,
    message: `the turn goes on in session ${ref.sessionId}: poll it with get_session or read_transcript`,
  };
  return { content: [{ type: "text" as const, text: still.message }], structuredContent: still };
}

function taskRefOf(params: { taskId?: unknown }): TaskRef {
  const ref = parseTaskId(params.taskId);
  if (!ref) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
  return ref;
}

async function knownTask<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found")
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
    throw err;
  }
}

export function buildServer(port: Port): McpServer {
  const server = new McpServer(
    { name: "highwater", version: "0.1.0" },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } as never },
  );
  const turn = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

  server.registerTool(
    "start_session",
    {
      description: "Start a new highwater session with a first message; answers a task (or the answer).",
      inputSchema: z.strictObject({ text: Text, title: z.string().max(500).optional(), model: Model.optional() }),
      annotations: turn,
    },
    (args, ctx) => guarded(() => turnCall(port, ctx as Ctx, (key) => port.start(args, key))),
  );
  server.registerTool(
    "send_message",
    {
      description: "Send a message to a session: it opens a turn or joins the open one.",
      inputSchema: z.strictObject({ sessionId: SessionId, text: Text }),
      annotations: turn,
    },
    (args, ctx) => guarded(() => turnCall(port, ctx as Ctx, (key) => port.send(args.sessionId, args.text, key))),
  );
  server.registerTool(
    "get_session",
    {
      description: "A session's state: status, pending approvals, wait, usage.",
      inputSchema: z.strictObject({ sessionId: SessionId }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => json(await port.session(args.sessionId))),
  );
  server.registerTool(
    "read_transcript",
    {
      description: "A session's transcript (messages, tool calls, approvals, errors), oldest first.",
      inputSchema: z.strictObject({ sessionId: SessionId, limit: z.number().int().min(1).max(500).optional() }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => json(await port.transcript(args.sessionId, args.limit ?? 200))),
  );
  server.registerTool(
    "decide_approval",
    {
      description: "Approve or reject a pending tool call of a session.",
      inputSchema: z.strictObject({
        sessionId: SessionId,
        requestId: z.string().min(1).max(300),
        decision: z.enum(["approve", "reject"]),
        reason: z.string().max(4096).optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ sessionId, requestId, ...body }) => guarded(async () => json(await port.decide(sessionId, requestId, body))),
  );
  server.registerTool(
    "list_sessions",
    {
      description: "The caller's sessions, newest first.",
      inputSchema: z.strictObject({
        limit: z.number().int().min(1).max(100).optional(),
        before: z.string().max(300).optional(),
      }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => json(await port.list(args.limit ?? 50, args.before))),
  );

  const TaskParams = z.looseObject({ taskId: z.string() });
  const requireDeclared = (ctx: unknown) => {
    if (!declaresTasks((ctx as Ctx).mcpReq.envelope))
      throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, "Missing required client capability", {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
  };
  server.server.setRequestHandler(
    "tasks/get" as never,
    { params: TaskParams } as never,
    (async (params: { taskId: string }, ctx: unknown) => {
      requireDeclared(ctx);
      const ref = taskRefOf(params);
      return detailedTask(ref, await knownTask(() => port.task(ref)));
    }) as never,
  );
  server.server.setRequestHandler(
    "tasks/cancel" as never,
    { params: TaskParams } as never,
    (async (params: { taskId: string }, ctx: unknown) => {
      requireDeclared(ctx);
      const ref = taskRefOf(params);
      await knownTask(() => port.cancel(ref));
      return {};
    }) as never,
  );
  return server;
}
