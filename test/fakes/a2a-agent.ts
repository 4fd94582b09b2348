/**
 * A fake A2A v1.0 agent for tests, built on `@a2a-js/sdk`'s server (`DefaultRequestHandler`,
 * `InMemoryTaskStore`, `JsonRpcTransportHandler`) over `node:http` on 127.0.0.1. Each message
 * starts a task that stays `working` until the test ends it (`complete`, `fail`, `reject`); a
 * `CancelTask` cancels it. Like a well-behaved agent it takes a message's `messageId` as its
 * idempotency key: a repeated `SendMessage` gets the task the first one started. It records every
 * send (with its push-notification config), every `GetTask` and `CancelTask`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard, type Message, type Task, TaskState } from "@a2a-js/sdk";
import {
  type AgentExecutionEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
  ServerCallContext,
} from "@a2a-js/sdk/server";

export type SendRecord = {
  messageId: string;
  text: string;
  taskId: string | null;
  notify: { url: string; token: string } | null;
  headers: IncomingMessage["headers"];
};

export type FakeA2aAgent = {
  /** The agent card's URL (configure it as the agent's `url`). */
  cardUrl: string;
  origin: string;
  sends: SendRecord[];
  /** `GetTask` calls by task id. */
  polls: Map<string, number>;
  cancels: string[];
  /** Answers sent to tasks that asked for input. */
  replies: { taskId: string; text: string }[];
  /** The task asks for input (`input-required`) with `question`. */
  ask(taskId: string, question: string): void;
  /** Distinct tasks started. */
  tasks(): string[];
  complete(taskId: string, text: string): void;
  fail(taskId: string, text: string): void;
  reject(taskId: string, text: string): void;
  /** Resolves with the first send's task id once a send arrived. */
  waitForSend(count?: number, timeoutMs?: number): Promise<SendRecord>;
  close(): Promise<void>;
};

type Pending = { bus: ExecutionEventBus; contextId: string; done: () => void };

const status = (state: TaskState, text?: string, taskId = "", contextId = "") => ({
  state,
  message: text
    ? ({
        messageId: crypto.randomUUID(),
        contextId,
        taskId,
        role: 2,
        parts: [
          { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      } as unknown as Message)
    : undefined,
  timestamp: new Date().toISOString(),
});

/**
 * `push: false`: the push-notification config of a send is recorded but not handed to the SDK, so
 * nothing is pushed (a test posts notifications itself). `uncancelable`: `CancelTask` fails.
 */
export async function startFakeA2aAgent(
  opts: { name?: string; push?: boolean; uncancelable?: boolean } = {},
): Promise<FakeA2aAgent> {
  const pending = new Map<string, Pending>();
  const byMessage = new Map<string, string>();
  const started: string[] = [];
  const sends: SendRecord[] = [];
  const polls = new Map<string, number>();
  const cancels: string[] = [];
  const waiters: (() => void)[] = [];
  const replies: { taskId: string; text: string }[] = [];

  const finish = (taskId: string, state: TaskState, text: string, artifact: boolean) => {
    const p = pending.get(taskId);
    if (!p) throw new Error(`fake a2a: no working task ${taskId}`);
    pending.delete(taskId);
    if (artifact)
      p.bus.publish({
        kind: "artifactUpdate",
        data: {
          taskId,
          contextId: p.contextId,
          artifact: {
            artifactId: "answer",
            name: "answer",
            description: "",
            parts: [
              { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      } as AgentExecutionEvent);
    p.bus.publish({
      kind: "statusUpdate",
      data: {
        taskId,
        contextId: p.contextId,
        status: status(state, artifact ? undefined : text, taskId, p.contextId),
        metadata: undefined,
      },
    } as AgentExecutionEvent);
    p.bus.finished();
    p.done();
  };

  const executor: AgentExecutor = {
    execute: (ctx: RequestContext, bus: ExecutionEventBus) =>
      new Promise<void>((done) => {
        // A follow-up to a task that asked for input: the same task goes on working.
        if (ctx.task) {
          const before = pending.get(ctx.taskId);
          replies.push({ taskId: ctx.taskId, text: textOfMessage(ctx.userMessage) });
          // The first execution ends with the task (ending it now would close the task's bus).
          pending.set(ctx.taskId, {
            bus,
            contextId: ctx.contextId,
            done: () => {
              done();
              before?.done();
            },
          });
          bus.publish({
            kind: "task",
            data: { ...ctx.task, status: status(TaskState.TASK_STATE_WORKING), history: [], artifacts: [] },
          });
          return;
        }
        const task: Task = {
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(TaskState.TASK_STATE_WORKING),
          artifacts: [],
          history: [],
          metadata: undefined,
        };
        pending.set(ctx.taskId, { bus, contextId: ctx.contextId, done });
        started.push(ctx.taskId);
        bus.publish({ kind: "task", data: task });
      }),
    cancelTask: async (taskId: string, bus: ExecutionEventBus) => {
      cancels.push(taskId);
      if (opts.uncancelable) throw new Error("this task cannot be cancelled");
      const p = pending.get(taskId);
      pending.delete(taskId);
      bus.publish({
        kind: "statusUpdate",
        data: {
          taskId,
          contextId: p?.contextId ?? "",
          status: status(TaskState.TASK_STATE_CANCELED),
          metadata: undefined,
        },
      } as AgentExecutionEvent);
      bus.finished();
      p?.done();
    },
  };

  let origin = "";
  const card = () =>
    AgentCard.fromJSON({
      name: opts.name ?? "fake agent",
      description: "a fake A2A agent for tests",
      version: "1.0.0",
      supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: false, pushNotifications: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const rpc = new JsonRpcTransportHandler(handler);

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(AgentCard.toJSON(card())));
      return;
    }
    if (req.method !== "POST" || req.url !== "/a2a") {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(text) as { id?: unknown; method?: string; params?: Record<string, unknown> };
    const params = body.params ?? {};
    if (body.method === "SendMessage") {
      const m = params.message as { messageId?: string; parts?: { text?: string }[] } | undefined;
      const cfg = (
        params.configuration as { taskPushNotificationConfig?: { url?: string; token?: string } } | undefined
      )?.taskPushNotificationConfig;
      const messageId = m?.messageId ?? "";
      const known = byMessage.get(messageId);
      const record: SendRecord = {
        messageId,
        text: (m?.parts ?? []).map((p) => p.text ?? "").join(""),
        taskId: known ?? null,
        notify: cfg?.url ? { url: cfg.url, token: cfg.token ?? "" } : null,
        headers: req.headers,
      };
      sends.push(record);
      for (const w of waiters.splice(0)) w();
      if (known) {
        // The messageId is the idempotency key: the same message gets the task it started.
        const again = await rpc.handle(
          { jsonrpc: "2.0", id: body.id ?? 1, method: "GetTask", params: { id: known } },
          context(req),
        );
        res.writeHead(200, { "content-type": "application/json" });
        const r = again as { result?: unknown };
        res.end(JSON.stringify({ ...r, result: r.result ? { task: r.result } : undefined }));
        return;
      }
      if (opts.push === false && params.configuration)
        delete (params.configuration as Record<string, unknown>).taskPushNotificationConfig;
      const answer = (await rpc.handle(body as Record<string, unknown>, context(req))) as {
        result?: { task?: { id?: string } };
      };
      const taskId = answer.result?.task?.id;
      if (taskId) {
        byMessage.set(messageId, taskId);
        record.taskId = taskId;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
      return;
    }
    if (body.method === "GetTask") {
      const id = String(params.id ?? "");
      polls.set(id, (polls.get(id) ?? 0) + 1);
    }
    const answer = await rpc.handle(body as Record<string, unknown>, context(req));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    cardUrl: `${origin}/.well-known/agent-card.json`,
    origin,
    sends,
    polls,
    cancels,
    replies,
    tasks: () => [...started],
    ask(taskId, question) {
      const p = pending.get(taskId);
      if (!p) throw new Error(`fake a2a: no working task ${taskId}`);
      p.bus.publish({
        kind: "statusUpdate",
        data: {
          taskId,
          contextId: p.contextId,
          status: status(TaskState.TASK_STATE_INPUT_REQUIRED, question, taskId, p.contextId),
          metadata: undefined,
        },
      } as AgentExecutionEvent);
    },
    complete: (id, text) => finish(id, TaskState.TASK_STATE_COMPLETED, text, true),
    fail: (id, text) => finish(id, TaskState.TASK_STATE_FAILED, text, false),
    reject: (id, text) => finish(id, TaskState.TASK_STATE_REJECTED, text, false),
    async waitForSend(count = 1, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (sends.filter((s) => s.taskId).length < count) {
        if (Date.now() > deadline) throw new Error(`fake a2a: no send with a task within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return sends.filter((s) => s.taskId)[count - 1]!;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function textOfMessage(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

function context(req: IncomingMessage): ServerCallContext {
  return new ServerCallContext({ requestedVersion: String(req.headers["a2a-version"] ?? "1.0") });
}
