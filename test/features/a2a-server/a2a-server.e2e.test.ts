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
    expect(list.result.configs[0].url).toBe(receiver.url);
    // A URL outside A2A_PUSH_ALLOWED_HOSTS is refused.
    const refused = await call("CreateTaskPushNotificationConfig", { taskId: task.id, url: "http://10.0.0.1/x" });
    expect(refused.error.code).toBe(-32602);
  });

  it("refuses each kind of bad input with the protocol's error and appends nothing", async () => {
    const created = await api.createSession({});
    const head = (await api.getSession(created.id)).highWater;
    const sessionsBefore = (await api.listSessions("?limit=100")).sessions.length;
    expect((await rpc("{not json")).error.code).toBe(-32700);
    expect((await rpc({ id: 1, method: "SendMessage" })).error.code).toBe(-32600);
    expect((await rpc([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: {} }])).error.code).toBe(-32600);
    expect((await call("NoSuchMethod", {})).error.code).toBe(-32601);
    expect((await rpc({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: [1] })).error.code).toBe(-32602);
    const noParts = await call("SendMessage", {
      message: { messageId: "bad-1", role: "ROLE_USER", parts: [], contextId: created.id },
    });
    expect(noParts.error.code).toBe(-32602);
    const big = await call("SendMessage", {
      message: { messageId: "big-1", role: "ROLE_USER", parts: [{ text: "x".repeat(300_000) }], contextId: created.id },
    });
    expect(big.error.code).toBe(-32602);
    expect(big.error.message).toContain("262144");
    // Someone else's context and someone else's task are not found.
    const foreign = await call(
      "SendMessage",
      { message: { messageId: "f-1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: created.id } },
      OTHER,
    );
    expect(foreign.error.code).toBe(-32001);
    const mine = (await call("SendMessage", {
      message: { messageId: "own-1", role: "ROLE_USER", parts: [{ text: "hi" }] },
      configuration: { returnImmediately: true },
    })) as Any;
    const theirs = await call("GetTask", { id: mine.result.task.id }, OTHER);
    expect(theirs.error.code).toBe(-32001);
    expect((await call("GetTask", { id: "nonsense" })).error.code).toBe(-32001);
    // A body over the edge's 1 MiB limit is refused before it is read, as on every route.
    const huge = await fetch(`${worker.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "SendMessage", params: { pad: "x".repeat(1_100_000) } }),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as Any).error.code).toBe("payload_too_large");
    const get = await fetch(`${worker.url}/a2a`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
    expect((await api.getSession(created.id)).highWater).toBe(head);
    // Only "own-1" made a session.
    expect((await api.listSessions("?limit=100")).sessions.length).toBe(sessionsBefore + 1);
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
