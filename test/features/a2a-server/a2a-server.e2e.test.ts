/**
 * A session as an A2A agent (docs/API.md#a2a-server), driven by `@a2a-js/sdk`'s own client against
 * a real `wrangler dev` with the demo model: send, stream, resubscribe mid-turn, get, cancel,
 * idempotent retries, push notifications (also across a kill -9), and each kind of bad input.
 */

import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../e2e/harness/api";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";

const TOKEN = "a2a-token";
const OTHER = "a2a-other";

type Received = { headers: IncomingMessage["headers"]; body: Record<string, Any> };
// biome-ignore lint/suspicious/noExplicitAny: JSON read field by field
type Any = any;

/** A push receiver in the test process: answers `status()` to each notification it records. */
async function startReceiver() {
  const received: Received[] = [];
  let status = 200;
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => {
      const code = status;
      if (code === 200) received.push({ headers: req.headers, body: JSON.parse(text) });
      else received.push({ headers: req.headers, body: { refused: code } });
      res.writeHead(code).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
  return {
    url,
    received,
    setStatus: (s: number) => {
      status = s;
    },
    async until(pred: (r: Received[]) => boolean) {
      while (!pred(received)) await new Promise<void>((r) => waiters.push(r));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function userMessage(text: string, messageId: string, extra: Partial<Message> = {}): Message {
  return {
    messageId,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function send(message: Message, configuration: Any = undefined) {
  return { tenant: "", message, configuration, metadata: undefined };
}

function textOfMessage(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

describe("a session as an A2A agent", () => {
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let nextId = 1;

  async function clientFor(token = TOKEN): Promise<Client> {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
      }),
    );
    return factory.createFromUrl(worker.url);
  }

  async function rpc(body: unknown, token = TOKEN): Promise<Any> {
    const res = await fetch(`${worker.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  const call = (method: string, params: unknown, token = TOKEN) =>
    rpc({ jsonrpc: "2.0", id: nextId++, method, params }, token);

  beforeAll(async () => {
    receiver = await startReceiver();
    persistTo = makePersistDir();
    worker = await startWrangler({
      persistTo,
      vars: { API_TOKENS: `${TOKEN},${OTHER}`, A2A_PUSH_ALLOWED_HOSTS: "127.0.0.1:*", A2A_AGENT_NAME: "e2e agent" },
    });
    api = createApi(worker.url, TOKEN);
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  it("serves a public agent card naming the endpoint, the bearer scheme and the capabilities", async () => {
    const res = await fetch(`${worker.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Any;
    expect(card.name).toBe("e2e agent");
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${worker.url}/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe("Bearer");
    expect(card.skills.length).toBeGreaterThan(0);
    // POST /a2a itself needs the token.
    const anon = await fetch(`${worker.url}/a2a`, { method: "POST", body: "{}" });
    expect(anon.status).toBe(401);
  });

  it("sends a message: a new context is a session of the caller, the task is its turn, retried sends append once", async () => {
    const client = await clientFor();
    const first = (await client.sendMessage(send(userMessage("plan a trip to Lisbon", "msg-1")))) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfMessage({ parts: first.artifacts[0]!.parts } as Message)).toContain("[demo model]");
    const session = await api.getSession(first.contextId);
    expect(session.openTurn).toBe(false);
    // Someone else's context is not theirs.
    expect((await createApi(worker.url, OTHER).raw("GET", `/v1/sessions/${first.contextId}`)).status).toBe(404);

    const again = (await client.sendMessage(send(userMessage("plan a trip to Lisbon", "msg-1")))) as Task;
    expect(again.id).toBe(first.id);
    expect(again.contextId).toBe(first.contextId);
    const events = await api.events(first.contextId, 0, 1000);
    expect(events.events.filter((e) => e.author === "user").length).toBe(1);

    const got = await client.getTask({ tenant: "", id: first.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history[0]!.messageId).toBe("msg-1");
    expect(got.history.some((m) => m.role === Role.ROLE_AGENT)).toBe(true);

    // A second message in the same context is a new turn of the same session.
    const second = (await client.sendMessage(
      send(userMessage("and now Porto", "msg-2", { contextId: first.contextId })),
    )) as Task;
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("streams a turn, and a client that went away mid-turn resubscribes and gets the rest once", async () => {
    const client = await clientFor();
    const created = await api.createSession({ approvals: [{ tool: "list_files" }] });
    const seen: StreamResponse[] = [];
    for await (const ev of client.sendMessageStream(
      send(userMessage("write a note about tides", "stream-1", { contextId: created.id })),
    )) {
      seen.push(ev);
      // Gone after the first thing the agent said, while the turn works on.
      if (ev.payload?.$case === "statusUpdate" && ev.payload.value.status?.message) break;
    }
    expect(seen[0]!.payload?.$case).toBe("task");
    const taskId = (seen[0]!.payload!.value as Task).id;
    const before = seen.flatMap((e) =>
      e.payload?.$case === "statusUpdate" && e.payload.value.status?.message ? [e.payload.value.status.message] : [],
    );
    expect(before.some((m) => textOfMessage(m).includes("[demo model]"))).toBe(true);

    // Subscribed again: the task as it is now first, then the rest; the turn stops at an approval
    // (the stream stays open through input-required) and goes on once it is approved.
    const rest: StreamResponse[] = [];
    const sub = client.resubscribeTask({ tenant: "", id: taskId });
    const firstOfSub = await sub.next();
    const snapshot = firstOfSub.value!.payload!.value as Task;
    expect(firstOfSub.value!.payload!.$case).toBe("task");
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED]).toContain(snapshot.status?.state);
    let asked = snapshot.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    while (!asked) {
      const next = await sub.next();
      rest.push(next.value!);
      const p = next.value!.payload;
      asked = p?.$case === "statusUpdate" && p.value.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    }
    const pending = (await api.getSession(created.id)).pendingApprovals[0]!;
    await api.raw("POST", `/v1/sessions/${created.id}/approvals/${pending.requestId}`, { decision: "approve" });
    for await (const ev of { [Symbol.asyncIterator]: () => sub }) rest.push(ev);
    const last = rest.at(-1)!.payload!;
    expect(last.$case).toBe("statusUpdate");
    expect((last.value as Any).status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(rest.some((e) => e.payload?.$case === "artifactUpdate")).toBe(true);

    const after = rest.flatMap((e) =>
      e.payload?.$case === "statusUpdate" &&
      e.payload.value.status?.state === TaskState.TASK_STATE_WORKING &&
      e.payload.value.status.message
        ? [e.payload.value.status.message]
        : [],
    );
    const snapIds = snapshot.history.map((m) => m.messageId);
    const afterIds = after.map((m) => m.messageId);
    // Nothing the snapshot held is sent again, nothing twice, and together they are the whole turn.
    expect(new Set(afterIds).size).toBe(afterIds.length);
    expect(afterIds.filter((id) => snapIds.includes(id))).toEqual([]);
    const whole = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect([...snapIds, ...afterIds]).toEqual(whole.history.map((m) => m.messageId));
  });

  it("cancels a waiting task as a stop of its turn; a finished task is not cancelable", async () => {
    const client = await clientFor();
    const created = await api.createSession({ approvals: [{ tool: "write_file" }] });
    const task = (await client.sendMessage(
      send(userMessage("write a note", "cancel-1", { contextId: created.id }), { returnImmediately: false }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const session = await api.getSession(created.id);
    expect(session.openTurn).toBe(false);
    const again = await call("CancelTask", { id: task.id });
    expect(again.error.code).toBe(-32002);
  });

  it("delivers a push notification of the task's outcome to an allowed URL, with its token", async () => {
    const client = await clientFor();
    const task = (await client.sendMessage(
      send(userMessage("plan a picnic", "push-1"), {
        returnImmediately: true,
        acceptedOutputModes: [],
        taskPushNotificationConfig: {
          tenant: "",
          id: "",
          taskId: "",
          url: receiver.url,
          token: "tok-1",
          authentication: undefined,
        },
      }),
    )) as Task;
    await receiver.until((r) => r.some((x) => x.body.statusUpdate?.taskId === task.id));
    const got = receiver.received.find((x) => x.body.statusUpdate?.taskId === task.id)!;
    expect(got.body.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(got.headers["x-a2a-notification-token"]).toBe("tok-1");
    const list = await call("ListTaskPushNotificationConfigs", { taskId: task.id });
    expect(list.result.configs.map((c: Any) => [c.id, c.url])).toEqual([["default", receiver.url]]);
    const one = await call("GetTaskPushNotificationConfig", { taskId: task.id, id: "default" });
    expect(one.result).toMatchObject({ taskId: task.id, url: receiver.url, token: "tok-1" });
    expect((await call("DeleteTaskPushNotificationConfig", { taskId: task.id, id: "default" })).error).toBeUndefined();
    expect((await call("ListTaskPushNotificationConfigs", { taskId: task.id })).result.configs ?? []).toEqual([]);
    expect((await call("GetTaskPushNotificationConfig", { taskId: task.id, id: "default" })).error.code).toBe(-32001);
  });

  it("tells a receiver that a task asks for input, then that it goes on and completes", async () => {
    const context = (await api.createSession({ approvals: [{ tool: "write_file" }] })).id;
    const sent = await call("SendMessage", {
      message: { messageId: "push-ask", role: "ROLE_USER", parts: [{ text: "write a note" }], contextId: context },
    });
    const taskId = sent.result.task.id;
    expect(sent.result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    // Set after the fact: the state it is in is sent at once, with the configured credentials.
    const set = await call("CreateTaskPushNotificationConfig", {
      taskId,
      id: "ops",
      url: receiver.url,
      authentication: { scheme: "Bearer", credentials: "receiver-secret" },
    });
    expect(set.result).toMatchObject({ taskId, id: "ops" });
    const of = (state: string) => (r: Received[]) =>
      r.some((x) => x.body.statusUpdate?.taskId === taskId && x.body.statusUpdate.status.state === state);
    await receiver.until(of("TASK_STATE_INPUT_REQUIRED"));
    const asked = receiver.received.find((x) => x.body.statusUpdate?.taskId === taskId)!;
    expect(asked.headers.authorization).toBe("Bearer receiver-secret");
    const pending = (await api.getSession(context)).pendingApprovals[0]!;
    await api.raw("POST", `/v1/sessions/${context}/approvals/${pending.requestId}`, { decision: "approve" });
    await receiver.until(of("TASK_STATE_COMPLETED"));
    const states = receiver.received
      .filter((x) => x.body.statusUpdate?.taskId === taskId)
      .map((x) => x.body.statusUpdate.status.state);
    expect(states).toContain("TASK_STATE_WORKING");
    // The token and the credentials are not in the log.
    const exported = await (await api.raw("GET", `/v1/sessions/${context}/export`)).text();
    expect(exported).not.toContain("receiver-secret");
  });

  describe("bad input is refused with the protocol's error and appends nothing", () => {
    // A context whose turn waits for an approval: its log stands still unless something appends.
    let context: string;
    let task: string;
    const text = (t: string) => [{ text: t }];
    const msg = (over: Record<string, unknown>) => ({
      messageId: "bad",
      role: "ROLE_USER",
      parts: text("hi"),
      ...over,
    });

    beforeAll(async () => {
      context = (await api.createSession({ approvals: [{ tool: "write_file" }] })).id;
      const sent = await call("SendMessage", { message: msg({ messageId: "parked", contextId: context }) });
      expect(sent.result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
      task = sent.result.task.id;
    });

    const CASES: [string, () => Promise<Any>, number][] = [
      ["a body that is not JSON", () => rpc("{not json"), -32700],
      ["an object that is not a JSON-RPC request", () => rpc({ id: 1, method: "SendMessage" }), -32600],
      ["a batch", () => rpc([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: task } }]), -32600],
      ["an unknown method", () => call("message/send", { message: msg({ contextId: context }) }), -32601],
      [
        "params that are not an object",
        () => rpc({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: [1] }),
        -32602,
      ],
      [
        "a message without text",
        () => call("SendMessage", { message: msg({ contextId: context, parts: [] }) }),
        -32602,
      ],
      [
        "a messageId over 196 characters",
        () => call("SendMessage", { message: msg({ messageId: "m".repeat(197) }) }),
        -32602,
      ],
      [
        "a text part over 262,144 UTF-8 bytes",
        () => call("SendMessage", { message: msg({ contextId: context, parts: text("x".repeat(300_000)) }) }),
        -32602,
      ],
      [
        "a part that is not text",
        () => call("SendMessage", { message: msg({ contextId: context, parts: [{ url: "https://x.test/a.png" }] }) }),
        -32005,
      ],
      ["someone else's context", () => call("SendMessage", { message: msg({ contextId: context }) }, OTHER), -32001],
      ["someone else's task", () => call("SendMessage", { message: msg({ taskId: task }) }, OTHER), -32001],
      ["someone else's task read", () => call("GetTask", { id: task }, OTHER), -32001],
      ["someone else's task canceled", () => call("CancelTask", { id: task }, OTHER), -32001],
      ["a task id never minted", () => call("GetTask", { id: `${context}.1.nope` }), -32001],
      [
        "a push URL outside A2A_PUSH_ALLOWED_HOSTS",
        () => call("CreateTaskPushNotificationConfig", { taskId: task, url: "http://10.0.0.1/hook" }),
        -32602,
      ],
    ];

    it.each(CASES)("%s", async (_name, request, code) => {
      const head = (await api.getSession(context)).highWater;
      const sessions = (await api.listSessions("?limit=100")).sessions.length;
      const answer = await request();
      expect(answer.error.code).toBe(code);
      expect(answer.result).toBeUndefined();
      expect((await api.getSession(context)).highWater).toBe(head);
      expect((await api.listSessions("?limit=100")).sessions.length).toBe(sessions);
      expect((await call("ListTaskPushNotificationConfigs", { taskId: task })).result.configs ?? []).toEqual([]);
    });

    it("an A2A-Version other than 1.0", async () => {
      const res = await fetch(`${worker.url}/a2a`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "a2a-version": "0.3" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: task } }),
      });
      expect(((await res.json()) as Any).error.code).toBe(-32009);
    });

    it("a body over the edge's 1 MiB limit is 413 before it is read, and GET /a2a is 405", async () => {
      const head = (await api.getSession(context)).highWater;
      const huge = await fetch(`${worker.url}/a2a`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "SendMessage",
          params: { message: msg({ contextId: context, parts: text("x".repeat(1_100_000)) }) },
        }),
      });
      expect(huge.status).toBe(413);
      expect(((await huge.json()) as Any).error.code).toBe("payload_too_large");
      const get = await fetch(`${worker.url}/a2a`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(get.status).toBe(405);
      expect((await api.getSession(context)).highWater).toBe(head);
    });
  });

  it("delivers a notification still owed after a kill -9 and a restart on the same state", async () => {
    receiver.setStatus(503);
    const task = (
      await call("SendMessage", {
        message: { messageId: "crash-1", role: "ROLE_USER", parts: [{ text: "plan a hike" }] },
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url, token: "tok-2" } },
      })
    ).result.task as Any;
    await receiver.until((r) =>
      r.some((x) => x.body.refused === 503 && x.headers["x-a2a-notification-token"] === "tok-2"),
    );
    await worker.kill9();
    receiver.setStatus(200);
    worker = await restartWrangler(worker);
    api = createApi(worker.url, TOKEN);
    await receiver.until((r) => r.some((x) => x.body.statusUpdate?.taskId === task.id));
    const got = receiver.received.find((x) => x.body.statusUpdate?.taskId === task.id)!;
    expect(got.body.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });
});
