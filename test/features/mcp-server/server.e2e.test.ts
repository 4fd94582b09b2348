/**
 * A session as an MCP server (docs/API.md#a-session-as-an-mcp-server), driven by the SDK's own
 * client (`@modelcontextprotocol/client`) against a real `wrangler dev` with the demo model. The
 * SDK client has no Tasks extension: the task-augmented calls and `tasks/*` are sent as the
 * 2026-07-28 wire carries them (the same headers and `_meta` envelope the SDK client sends).
 */
import { rmSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../e2e/harness/api";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";

const TOKEN = "mcp-token";
const OTHER = "other-token";
const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const KEY = "io.highwater/idempotency-key";

type Rpc = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are read field by field
type Any = any;

describe("a session as an MCP server", () => {
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;
  let nextId = 1;

  beforeAll(async () => {
    persistTo = makePersistDir();
    worker = await startWrangler({ persistTo, vars: { API_TOKENS: `${TOKEN},${OTHER}` } });
    api = createApi(worker.url, TOKEN);
  });
  afterAll(async () => {
    await worker?.stop();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  async function connect(opts: { token?: string; modern?: boolean } = {}) {
    const client = new Client(
      { name: "e2e", version: "1.0.0" },
      opts.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${opts.token ?? TOKEN}` } },
    });
    await client.connect(transport);
    return client;
  }

  /** One 2026-07-28 request declaring the Tasks extension, as the SDK client would send it. */
  async function rpc(
    method: string,
    params: Record<string, unknown>,
    opts: { token?: string; meta?: object; withoutTasks?: boolean } = {},
  ) {
    const res = await fetch(`${worker.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${opts.token ?? TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        ...(typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": { name: "e2e", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": opts.withoutTasks ? {} : { extensions: { [TASKS]: {} } },
            ...opts.meta,
          },
        },
      }),
    });
    return (await res.json()) as Rpc;
  }

  const callTask = async (name: string, args: object, meta?: object) =>
    (await rpc("tools/call", { name, arguments: args }, { meta })).result as Any;

  async function pollTask(taskId: string, until: (t: Any) => boolean, timeoutMs = 60_000) {
    const start = Date.now();
    for (;;) {
      const r = await rpc("tasks/get", { taskId });
      if (r.error) throw new Error(JSON.stringify(r.error));
      if (until(r.result)) return r.result as Any;
      if (Date.now() - start > timeoutMs) throw new Error(`timeout: ${JSON.stringify(r.result)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const terminal = (t: Any) => ["completed", "failed", "cancelled"].includes(t.status);

  it("initialize and tools/list, in 2025-11-25 and 2026-07-28, with their annotations", async () => {
    for (const modern of [false, true]) {
      const client = await connect({ modern });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "start_session",
        "send_message",
        "get_session",
        "read_transcript",
        "decide_approval",
        "list_sessions",
      ]);
      const get = tools.find((t) => t.name === "get_session")!;
      expect(get.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(tools.find((t) => t.name === "start_session")!.annotations).toMatchObject({ readOnlyHint: false });
      expect(client.getServerCapabilities()?.extensions).toHaveProperty(TASKS);
      await client.close();
    }
  });

  it("without the Tasks extension start_session answers with the turn's answer", async () => {
    const client = await connect();
    const r = (await client.callTool({ name: "start_session", arguments: { text: "hello", title: "via mcp" } })) as Any;
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toContain("[demo model]");
    const s = await api.getSession(r.structuredContent.sessionId);
    expect(s).toMatchObject({ title: "via mcp", openTurn: false, status: "idle" });
    const listed = (await client.callTool({ name: "list_sessions", arguments: { limit: 5 } })) as Any;
    expect(listed.structuredContent.sessions.map((x: Any) => x.id)).toContain(s.id);
    const tr = (await client.callTool({ name: "read_transcript", arguments: { sessionId: s.id } })) as Any;
    expect(JSON.stringify(tr.structuredContent)).toContain("hello");
    await client.close();
  });

  it("a task-augmented start_session answers a task at once; tasks/get reaches completed with the answer", async () => {
    const task = await callTask("start_session", { text: "hello" });
    expect(task).toMatchObject({ resultType: "task", ttlMs: null });
    expect(["working", "completed"]).toContain(task.status);
    const sessionId = String(task.taskId).split(".")[0]!;
    const done = await pollTask(task.taskId, terminal);
    expect(done).toMatchObject({ resultType: "complete", status: "completed", taskId: task.taskId });
    expect(done.result.content[0].text).toContain("[demo model]");
    // The answer is the turn's last model text, as the log has it.
    const events = (await api.events(sessionId)).events;
    const last = events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1) as Any;
    expect(done.result.content[0].text).toBe(last.content.text);
  });

  it("an approval surfaces as input_required and decide_approval lets the turn complete", async () => {
    const s = await api.createSession({ approvals: [{ tool: "write_file" }] } as never);
    const task = await callTask("send_message", { sessionId: s.id, text: "write the notes" });
    const waiting = await pollTask(task.taskId, (t) => t.status === "input_required" || terminal(t));
    expect(waiting.status).toBe("input_required");
    const [key, request] = Object.entries(waiting.inputRequests)[0] as [string, Any];
    expect(key).toMatch(/^approval:/);
    expect(request.method).toBe("elicitation/create");
    const requestId = key.slice("approval:".length);
    const client = await connect({ modern: true });
    const decided = (await client.callTool({
      name: "decide_approval",
      arguments: { sessionId: s.id, requestId, decision: "approve" },
    })) as Any;
    expect(decided.isError).toBeFalsy();
    const done = await pollTask(task.taskId, terminal);
    expect(done.status).toBe("completed");
    await client.close();
  });

  it("tasks/cancel stops the turn; tasks/get then says cancelled", async () => {
    const s = await api.createSession({ approvals: [{ tool: "write_file" }] } as never);
    const task = await callTask("send_message", { sessionId: s.id, text: "write the notes" });
    await pollTask(task.taskId, (t) => t.status === "input_required");
    const cancel = await rpc("tasks/cancel", { taskId: task.taskId });
    expect(cancel.result).toMatchObject({ resultType: "complete" });
    const done = await rpc("tasks/get", { taskId: task.taskId });
    expect(done.result).toMatchObject({ status: "cancelled" });
    expect(await api.getSession(s.id)).toMatchObject({ openTurn: false });
  });

  it("a retried call with the same idempotency key starts one session and one turn", async () => {
    const meta = { [KEY]: "retry-1" };
    const a = await callTask("start_session", { text: "hello" }, meta);
    const b = await callTask("start_session", { text: "hello" }, meta);
    expect(b.taskId).toBe(a.taskId);
    const sessionId = String(a.taskId).split(".")[0]!;
    await pollTask(a.taskId, terminal);
    const c = await callTask("send_message", { sessionId, text: "again" }, { [KEY]: "retry-2" });
    const d = await callTask("send_message", { sessionId, text: "again" }, { [KEY]: "retry-2" });
    expect(d.taskId).toBe(c.taskId);
    await pollTask(c.taskId, terminal);
    const events = (await api.events(sessionId)).events;
    expect(events.filter((e) => e.author === "user").length).toBe(2);
    const listed = await api.listSessions();
    expect(listed.sessions.filter((x: Any) => x.id === sessionId).length).toBe(1);
  });

  it("another token's client can neither see nor touch the session; nothing is appended", async () => {
    const task = await callTask("start_session", { text: "hello" });
    const sessionId = String(task.taskId).split(".")[0]!;
    await pollTask(task.taskId, terminal);
    const before = (await api.getSession(sessionId)).highWater;
    const other = await connect({ token: OTHER, modern: true });
    for (const [name, args] of [
      ["get_session", { sessionId }],
      ["read_transcript", { sessionId }],
      ["send_message", { sessionId, text: "hi" }],
      ["decide_approval", { sessionId, requestId: "x", decision: "approve" }],
    ] as const) {
      const r = (await other.callTool({ name, arguments: args })) as Any;
      expect(r.isError, name).toBe(true);
      expect(r.structuredContent.error.code, name).toBe("not_found");
    }
    const listed = (await other.callTool({ name: "list_sessions", arguments: {} })) as Any;
    expect(listed.structuredContent.sessions.map((x: Any) => x.id)).not.toContain(sessionId);
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const r = await rpc(method, { taskId: task.taskId }, { token: OTHER });
      expect(r.error?.code, method).toBe(-32602);
    }
    expect((await api.getSession(sessionId)).highWater).toBe(before);
    await other.close();
  });

  it("a bad Origin is refused (403, JSON-RPC error); malformed JSON-RPC gets the protocol's error; nothing appended", async () => {
    const task = await callTask("start_session", { text: "hello" });
    const sessionId = String(task.taskId).split(".")[0]!;
    await pollTask(task.taskId, terminal);
    const before = (await api.getSession(sessionId)).highWater;
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${worker.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body,
      });
    const send = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "send_message", arguments: { sessionId, text: "hi" } },
    });
    const evil = await post(send, { origin: "http://evil.example", "mcp-protocol-version": "2025-11-25" });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as Any).error.code).toBe(-32000);
    const unauth = await fetch(`${worker.url}/mcp`, { method: "POST", body: send });
    expect(unauth.status).toBe(401);
    const broken = await post("{not json");
    expect(((await broken.json()) as Any).error.code).toBe(-32700);
    const notRpc = await post(JSON.stringify({ hello: 1 }));
    expect([-32600, -32700]).toContain(((await notRpc.json()) as Any).error.code);
    const badTask = await rpc("tasks/get", { taskId: "nope" });
    expect(badTask.error?.code).toBe(-32602);
    const undeclared = await rpc("tasks/get", { taskId: task.taskId }, { withoutTasks: true });
    expect(undeclared.error?.code).toBe(-32021);
    const update = await rpc("tasks/update", { taskId: task.taskId, inputResponses: {} });
    expect(update.error?.code).toBe(-32601);
    const badArgs = await rpc("tools/call", { name: "send_message", arguments: { sessionId, text: 5 } });
    expect(JSON.stringify(badArgs)).toMatch(/isError|-32602/);
    expect((await api.getSession(sessionId)).highWater).toBe(before);
  });

  it("after kill -9 and a restart on the same state, tasks/get answers from the log, and a task waiting across it completes", async () => {
    const done = await callTask("start_session", { text: "hello" });
    const answer = (await pollTask(done.taskId, terminal)).result;
    const s = await api.createSession({ approvals: [{ tool: "write_file" }] } as never);
    const waiting = await callTask("send_message", { sessionId: s.id, text: "write the notes" });
    const asked = await pollTask(waiting.taskId, (t) => t.status === "input_required");

    worker = await restartWrangler(worker);
    api = createApi(worker.url, TOKEN);

    const again = await rpc("tasks/get", { taskId: done.taskId });
    expect(again.result).toMatchObject({ status: "completed", result: answer });
    const still = await rpc("tasks/get", { taskId: waiting.taskId });
    expect(still.result).toMatchObject({ status: "input_required", inputRequests: asked.inputRequests });

    // The host goes on with the task it started before the crash: it decides the approval the
    // task asks for, polls, and reads the turn's answer.
    const [key] = Object.keys(asked.inputRequests);
    const client = await connect({ modern: true });
    const decided = (await client.callTool({
      name: "decide_approval",
      arguments: { sessionId: s.id, requestId: String(key).slice("approval:".length), decision: "approve" },
    })) as Any;
    expect(decided.isError).toBeFalsy();
    await client.close();
    const finished = await pollTask(waiting.taskId, terminal);
    expect(finished.status).toBe("completed");
    const text = JSON.stringify(finished.result);
    expect(text.length).toBeGreaterThan(2);
    // One turn for the message, closed once as completed; one dispatch of the approved tool,
    // answered once.
    const events = await api.allEvents(s.id);
    expect(events.filter((e) => e.actions?.turnClose).map((e) => e.actions?.turnClose?.reason)).toEqual(["completed"]);
    const dispatches = events.filter((e) => e.actions?.toolDispatch?.tool === "write_file");
    expect(dispatches).toHaveLength(1);
    const callId = dispatches[0]?.actions?.toolDispatch?.callId;
    expect(events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === callId)).toHaveLength(1);
  });
});
