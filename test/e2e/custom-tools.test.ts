/**
 * A deployment's own tools and the keys and secrets that reach the outside, end to end: a real
 * `wrangler dev` of a deployment built on the package entry (test/e2e/custom/worker.ts), a fake
 * model, and a recording server that sees every request the tools make.
 *
 *   npx vitest run --project e2e test/e2e/custom-tools.test.ts
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customToolsConfig } from "./custom/config";
import { type Recorder, startRecorder } from "./custom/recorder";
import { type Api, createApi, describeEvent, type Event, type WsClient } from "./harness/api";
import { type FakeOpenAI, type Reply, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "custom-tools-token";
const SVC_TOKEN = "svc-s3cr3t-VALUE-1234";
const DEMO_SECRET = "demo-s3cr3t-VALUE-5678";

/** The §8 key, computed here without highwater's code. */
const keyFor = (sessionId: string, callId: string) =>
  `hw_${createHash("sha256").update(`${sessionId}:${callId}`).digest("hex").slice(0, 32)}`;

type Call = { name: string; args: unknown };
const fetchCall = (args: Record<string, unknown>): Call => ({ name: "http_fetch", args });

let recorder: Recorder;
/** Each scenario's model steps, keyed by the first word of the user's message. */
const scripts = (): Record<string, Reply[]> => {
  const u = recorder.url;
  return {
    errors: [
      {
        toolCalls: [
          { name: "fail_typed", args: { id: "7" } },
          { name: "fail_plain", args: {} },
          { name: "record_read", args: { note: 5 } },
        ],
      },
      { text: "done" },
    ],
    timeout: [
      {
        toolCalls: [
          { name: "slow_write", args: {} },
          { name: "slow_read", args: {} },
        ],
      },
      { text: "done" },
    ],
    offload: [{ toolCalls: [{ name: "big_result", args: { kib: 64 } }] }, { text: "done" }],
    stop: [{ toolCalls: [{ name: "wait_for_stop", args: {} }] }, { text: "done" }],
    approve: [{ toolCalls: [{ name: "record_write", args: { note: "approved" } }] }, { text: "done" }],
    keys: [
      {
        toolCalls: [
          fetchCall({ url: `${u}/k-post`, method: "POST", body: "x" }),
          fetchCall({ url: `${u}/k-get` }),
          fetchCall({ url: `${u}/k-own`, method: "PUT", headers: { "IDEMPOTENCY-KEY": "mine" }, body: "x" }),
          fetchCall({ url: `${u}/k-delete`, method: "DELETE" }),
          fetchCall({ url: `${u}/k-options`, method: "OPTIONS" }),
          { name: "record_idempotent", args: { note: "keyed" } },
        ],
      },
      { text: "done" },
    ],
    secrets: [
      {
        toolCalls: [
          fetchCall({ url: `${u}/echo`, headers: { authorization: "Bearer {{secret:SVC_TOKEN}}" } }),
          fetchCall({ url: `${u}/unlisted`, headers: { "x-token": "{{secret:DEMO_SECRET}}" } }),
          fetchCall({
            url: `http://localhost:${recorder.port}/otherhost`,
            headers: { "x-token": "{{secret:SVC_TOKEN}}" },
          }),
          fetchCall({ url: `${u}/redirect`, headers: { "x-token": "{{secret:SVC_TOKEN}}" } }),
          fetchCall({ url: `${u}/inbody`, method: "POST", body: "{{secret:SVC_TOKEN}}" }),
          { name: "leak_secret", args: {} },
          { name: "leak_secret", args: { throw: true } },
          { name: "leak_encoded", args: {} },
        ],
      },
      { text: "done" },
    ],
  };
};

describe("custom tools, keys and secrets (real wrangler dev)", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;

  beforeAll(async () => {
    recorder = await startRecorder();
    recorder.redirect("/redirect", `http://localhost:${recorder.port}/landed`);
    const byScenario = scripts();
    fake = await startFakeOpenAI(
      scriptedAgent((step, ctx) => byScenario[ctx.lastUserText.split(":")[0] ?? ""]?.[step] ?? { text: "done" }),
    );
    persistTo = makePersistDir("hw-custom-");
    worker = await startWrangler({
      persistTo,
      config: customToolsConfig(),
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: fake.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake-model",
        HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*,localhost:*",
        HTTP_TOOL_SECRETS: `SVC_TOKEN=127.0.0.1:${recorder.port}`,
        SVC_TOKEN,
        DEMO_SECRET,
        RECORDER_URL: recorder.url,
      },
    });
    api = createApi(worker.url, TOKEN);
  });

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    await recorder?.close();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  const responses = (events: Event[]) =>
    events.flatMap((e) => (e.content?.type === "functionResponse" ? [{ ...e.content, seq: e.seq }] : []));
  const dispatchOf = (events: Event[], callId: string) =>
    events.find((e) => e.actions?.toolDispatch?.callId === callId)?.actions?.toolDispatch;
  const callsOf = (events: Event[]) => events.flatMap((e) => (e.content?.type === "functionCall" ? [e.content] : []));
  const show = (events: Event[]) => `${events.map(describeEvent).join("\n")}\n${worker.logs().slice(-3000)}`;

  it("a ToolError is an error with its code, any other throw is tool_failed, bad arguments are invalid_arguments", async () => {
    const s = await api.createSession({});
    await api.sendMessage(s.id, "errors: try the failing tools");
    const { events } = await api.waitForIdle(s.id);
    const byName = Object.fromEntries(responses(events).map((r) => [r.name, r]));
    expect(byName.fail_typed, show(events)).toMatchObject({
      status: "error",
      response: { code: "order_not_found", message: "no order 7" },
    });
    expect(byName.fail_plain).toMatchObject({
      status: "error",
      response: { code: "tool_failed", message: "the database is on fire" },
    });
    expect(byName.record_read).toMatchObject({ status: "error", response: { code: "invalid_arguments" } });
    expect(recorder.hits("/read")).toEqual([]);
    for (const c of callsOf(events)) expect(dispatchOf(events, c.callId)?.effect).toBe("read");
  });

  it("timeoutMs bounds a call: a timed-out write is interrupted (it may have happened), a read tool_timeout", async () => {
    const s = await api.createSession({});
    const started = Date.now();
    await api.sendMessage(s.id, "timeout: call the slow tools");
    const { events } = await api.waitForIdle(s.id);
    const byName = Object.fromEntries(responses(events).map((r) => [r.name, r]));
    expect(byName.slow_write, show(events)).toMatchObject({
      status: "interrupted",
      response: { reason: "timeout", message: expect.stringMatching(/may or may not have happened/) },
    });
    expect(byName.slow_read).toMatchObject({ status: "error", response: { code: "tool_timeout" } });
    expect(recorder.hits("/slow-write")).toHaveLength(1);
    // Two calls of 1 s each, not the 60 s default.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("a large custom tool result is offloaded like a built-in's: archived, the model sees a placeholder", async () => {
    const s = await api.createSession({});
    await api.sendMessage(s.id, "offload: return a large result");
    const { events } = await api.waitForIdle(s.id);
    const t2 = events.find((e) => e.content?.type === "functionResponse")!;
    const offload = t2.actions?.stateDelta?.offload as { sha256: string; bytes: number } | undefined;
    expect(offload, show(events)).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(offload!.bytes).toBeGreaterThan(64 * 1024);
    const next = fake.chatRequests().find((r) => JSON.stringify(r.body).includes(`archive://${offload!.sha256}`));
    expect(next, "no model request carried the placeholder").toBeDefined();
    expect(JSON.stringify(next!.body)).not.toContain("0123456789abcdef".repeat(64));
    const archived = await api.raw("GET", `/v1/sessions/${s.id}/archive/${offload!.sha256}`);
    expect(archived.status).toBe(200);
  });

  it("a stop aborts a running custom tool's signal", async () => {
    const s = await api.createSession({});
    await api.sendMessage(s.id, "stop: run until stopped");
    await recorder.waitFor("/started");
    expect(recorder.hits("/aborted")).toEqual([]);
    await api.stop(s.id);
    const [aborted] = await recorder.waitFor("/aborted");
    expect(JSON.parse(aborted!.body)).toEqual({ aborted: true });
    const { events } = await api.waitForIdle(s.id);
    expect(responses(events).map((r) => [r.name, r.status])).toEqual([["wait_for_stop", "interrupted"]]);
    expect(events.find((e) => e.actions?.turnClose)?.actions?.turnClose).toEqual({ reason: "stopped" });
  });

  it("a custom tool waits for its approval, then runs once with the key recorded at dispatch", async () => {
    // A session may name the deployment's tools in `tools` and in approval rules.
    const s = await api.createSession({ tools: ["record_write"], approvals: [{ tool: "record_write" }] });
    await api.sendMessage(s.id, "approve: write after approval");
    const waiting = await api.waitFor(s.id, (x) => x.pendingApprovals.length > 0);
    expect(recorder.hits("/write")).toEqual([]);
    await api.decide(s.id, waiting.session.pendingApprovals[0]!.requestId, "approve");
    const { events } = await api.waitForIdle(s.id);
    const [call] = callsOf(events);
    const dispatch = dispatchOf(events, call!.callId)!;
    expect(dispatch).toMatchObject({ tool: "record_write", effect: "write" });
    expect(dispatch.idempotencyKey).toBe(keyFor(s.id, call!.callId));
    const hits = recorder.hits("/write");
    expect(hits.map((h) => h.headers["idempotency-key"])).toEqual([dispatch.idempotencyKey]);
    expect(responses(events)[0]).toMatchObject({ status: "ok", response: { path: "/write", n: 1 } });
  });

  it("http_fetch sends Idempotency-Key on every method but GET, HEAD and OPTIONS, unless the arguments set it", async () => {
    const s = await api.createSession({});
    await api.sendMessage(s.id, "keys: call with keys");
    const { events } = await api.waitForIdle(s.id);
    const keyOfCall = (i: number) => dispatchOf(events, callsOf(events)[i]!.callId)!.idempotencyKey;
    for (let i = 0; i < 6; i++) expect(keyOfCall(i)).toBe(keyFor(s.id, callsOf(events)[i]!.callId));
    const sent = (path: string) => recorder.hits(path).map((h) => h.headers["idempotency-key"] ?? null);
    expect(sent("/k-post"), show(events)).toEqual([keyOfCall(0)]);
    expect(sent("/k-get")).toEqual([null]);
    expect(sent("/k-own")).toEqual(["mine"]);
    expect(sent("/k-delete")).toEqual([keyOfCall(3)]);
    expect(sent("/k-options")).toEqual([null]);
    // A TypeScript tool gets the same key as ctx.idempotencyKey.
    expect(sent("/idempotent")).toEqual([keyOfCall(5)]);
    expect(dispatchOf(events, callsOf(events)[5]!.callId)?.effect).toBe("idempotent");
  });

  describe("secrets by reference", () => {
    let sessionId: string;
    let events: Event[];
    let ws: WsClient;

    beforeAll(async () => {
      const s = await api.createSession({});
      sessionId = s.id;
      ws = await api.connectWs(s.id, { after: 0 });
      await api.sendMessage(s.id, "secrets: use the token");
      events = (await api.waitForIdle(s.id)).events;
      await ws.waitForFrame((f) => f.type === "event" && f.event.seq === events.at(-1)!.seq);
      await ws.close();
    });

    const byUrl = (suffix: string) => {
      const call = callsOf(events).find((c) => (c.args as { url?: string }).url?.endsWith(suffix))!;
      return responses(events).find((r) => r.callId === call.callId)!;
    };

    it("a listed secret goes to its host, in the header where the model referenced it", () => {
      const hits = recorder.hits("/echo");
      expect(hits.map((h) => h.headers.authorization)).toEqual([`Bearer ${SVC_TOKEN}`]);
      const echo = byUrl("/echo");
      expect(echo.status, show(events)).toBe("ok");
      // The server echoed the value back: the log holds the reference.
      expect(JSON.stringify(echo.response)).toContain("Bearer [secret:SVC_TOKEN]");
    });

    it("any other use is secret_not_allowed and nothing is sent", () => {
      for (const suffix of ["/unlisted", "/otherhost", "/redirect", "/inbody"])
        expect(byUrl(suffix), suffix).toMatchObject({ status: "error", response: { code: "secret_not_allowed" } });
      expect(recorder.hits("/unlisted")).toEqual([]);
      expect(recorder.hits("/otherhost")).toEqual([]);
      expect(recorder.hits("/inbody")).toEqual([]);
      // The first hop matched and was sent; the hop to another host was not.
      expect(recorder.hits("/redirect")).toHaveLength(1);
      expect(recorder.hits("/landed")).toEqual([]);
    });

    it("a value a custom tool read is redacted from its result and from its error message", () => {
      const leaks = responses(events).filter((r) => r.name === "leak_secret");
      expect(leaks.map((r) => [r.status, r.response])).toEqual([
        ["ok", { echoed: "token=[secret:DEMO_SECRET]" }],
        ["error", { code: "tool_failed", message: "upstream refused token [secret:DEMO_SECRET]" }],
      ]);
      const encoded = responses(events).find((r) => r.name === "leak_encoded")!;
      expect(encoded.status, show(events)).toBe("ok");
      for (const [form, text] of Object.entries(encoded.response as Record<string, string>))
        expect(text, form).toContain("[secret:DEMO_SECRET]");
    });

    it("no secret value is in the export, /context, /transcript, the events, the session, WebSocket frames or model requests", async () => {
      const surfaces: Record<string, string> = {
        export: await api.exportNdjson(sessionId),
        context: JSON.stringify(await api.context(sessionId)),
        transcript: JSON.stringify(await api.transcript(sessionId)),
        events: JSON.stringify(await api.allEvents(sessionId)),
        session: JSON.stringify(await api.getSession(sessionId)),
        websocket: JSON.stringify(ws.frames),
        model: JSON.stringify(fake.chatRequests().map((r) => r.body)),
      };
      const forms = [DEMO_SECRET, btoa(DEMO_SECRET), btoa(DEMO_SECRET).replace(/=+$/, "")];
      for (const [where, text] of Object.entries(surfaces)) {
        expect(text.includes(SVC_TOKEN), `SVC_TOKEN in ${where}`).toBe(false);
        for (const form of forms) expect(text.includes(form), `DEMO_SECRET (${form}) in ${where}`).toBe(false);
      }
      // The surfaces do carry the results (so the check above looked at the right text).
      for (const where of ["export", "context", "transcript", "websocket"])
        expect(surfaces[where], where).toContain("[secret:DEMO_SECRET]");
    });
  });
});
