/**
 * Walking skeleton, end to end: a real `wrangler dev`, a fake OpenAI-compatible model that
 * writes a file, reads it back and answers "done", and every public surface a user touches
 * (HTTP routes, the workspace, /verify, the export, the WebSocket replay) agreeing on one log.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi, describeEvent, type Event, type Session, verifyExportIndependently } from "./harness/api";
import { type FakeOpenAI, messageText, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "e2e-token";
const NOTE = { path: "notes/hello.txt", content: "hello from e2e" };
const USER_TEXT = "Write a note to notes/hello.txt, read it back, then say done.";

describe("walking skeleton", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;
  let session: Session;
  let sent: { turnId: string; seq: number };
  let final: Session;
  let events: Event[];

  beforeAll(async () => {
    fake = await startFakeOpenAI(
      scriptedAgent([
        { toolCalls: [{ name: "write_file", args: NOTE }] },
        { text: "Now reading it back.", toolCalls: [{ name: "read_file", args: { path: NOTE.path } }] },
        { text: "done" },
      ]),
    );
    persistTo = makePersistDir();
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: fake.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake-model",
      },
    });
    api = createApi(worker.url, TOKEN);
  });

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  const show = () =>
    `events:\n${events.map(describeEvent).join("\n")}\n--- wrangler ---\n${worker.logs().slice(-4000)}`;

  it("creates a session and accepts a message", async () => {
    const res = await api.raw("POST", "/v1/sessions", {});
    expect(res.status).toBe(201);
    session = (await res.json()) as Session;
    expect(session.id).toEqual(expect.any(String));
    expect(session).toMatchObject({ openTurn: false, status: "idle", parentId: null });
    expect(session.highWater).toBeGreaterThanOrEqual(1);

    sent = await api.sendMessage(session.id, USER_TEXT);
    expect(sent).toEqual({ turnId: expect.any(String), seq: expect.any(Number) });
    expect(sent.seq).toBeGreaterThan(session.highWater);
  });

  it("runs the turn to completion", async () => {
    const done = await api.waitForIdle(session.id, { timeoutMs: 120_000 });
    final = done.session;
    events = done.events;
    expect(final.status, show()).toBe("idle");
    expect(final.openTurn).toBe(false);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: final.highWater }, (_, i) => i + 1));
    expect(final.headDigest).toBe(events.at(-1)?.digest);
  });

  it("records the whole turn in the log, with each tool dispatched before its response", () => {
    const at = (pred: (e: Event) => boolean, what: string) => {
      const i = events.findIndex(pred);
      expect(i, `${what}\n${show()}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const userIdx = at(
      (e) => e.author === "user" && e.content?.type === "text" && e.content.text === USER_TEXT,
      "user text",
    );
    const userEv = events[userIdx]!;
    expect(userEv.seq).toBe(sent.seq);
    expect(userEv.turnId).toBe(sent.turnId);
    expect(userEv.source).toBe("http");

    const toolStep = (name: string, args: unknown) => {
      const callIdx = at(
        (e) => e.author === "model" && e.content?.type === "functionCall" && e.content.name === name,
        `functionCall ${name}`,
      );
      const call = events[callIdx]!.content as Extract<Event["content"], { type: "functionCall" }>;
      expect(call.args).toEqual(args);
      const dispatchIdx = at((e) => e.actions?.toolDispatch?.callId === call.callId, `toolDispatch ${name}`);
      const dispatch = events[dispatchIdx]!;
      expect(dispatch.author).toBe("runtime");
      expect(dispatch.actions?.toolDispatch).toMatchObject({ tool: name, idempotencyKey: expect.any(String) });
      const responseIdx = at(
        (e) => e.content?.type === "functionResponse" && e.content.callId === call.callId,
        `functionResponse ${name}`,
      );
      const response = events[responseIdx]!;
      expect(response.author).toBe("tool");
      expect(response.content).toMatchObject({ type: "functionResponse", name, status: "ok" });
      expect(userIdx).toBeLessThan(callIdx);
      expect(callIdx).toBeLessThan(dispatchIdx);
      expect(dispatchIdx).toBeLessThan(responseIdx);
      expect(
        events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === call.callId),
      ).toHaveLength(1);
      return { callIdx, dispatchIdx, responseIdx, callId: call.callId, dispatch, response };
    };

    const write = toolStep("write_file", NOTE);
    expect(write.dispatch.actions?.toolDispatch?.effect).toBe("write");
    const read = toolStep("read_file", { path: NOTE.path });
    expect(read.dispatch.actions?.toolDispatch?.effect).toBe("read");
    expect(write.responseIdx).toBeLessThan(read.callIdx);
    const readResponse = read.response.content as Extract<Event["content"], { type: "functionResponse" }>;
    expect(JSON.stringify(readResponse.response)).toContain("hello from e2e");

    const doneIdx = at(
      (e) => e.author === "model" && e.content?.type === "text" && e.content.text.trim() === "done",
      'model text "done"',
    );
    expect(read.responseIdx).toBeLessThan(doneIdx);
    const closeIdx = at((e) => e.actions?.turnClose !== undefined, "turnClose");
    expect(events[closeIdx]!.actions?.turnClose?.reason).toBe("completed");
    expect(doneIdx).toBeLessThanOrEqual(closeIdx);
    expect(events.filter((e) => e.actions?.turnClose)).toHaveLength(1);
    for (const i of [write.callIdx, write.dispatchIdx, write.responseIdx, read.responseIdx, doneIdx, closeIdx]) {
      expect(events[i]!.turnId, describeEvent(events[i]!)).toBe(sent.turnId);
    }

    // One modelRequest per provider call, each before the answer it asked for.
    const requests = events.filter((e) => e.actions?.modelRequest);
    expect(requests).toHaveLength(3);
    expect(fake.chatRequests()).toHaveLength(3);
    for (const r of requests) {
      expect(r.actions?.modelRequest).toMatchObject({
        throughSeq: expect.any(Number),
        estimatedTokens: expect.any(Number),
        requestDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(r.actions!.modelRequest!.throughSeq).toBeLessThan(r.seq);
    }
    expect(requests[0]!.seq).toBeLessThan(events[write.callIdx]!.seq);
    expect(requests[1]!.seq).toBeGreaterThan(events[write.responseIdx]!.seq);
    expect(requests[2]!.seq).toBeGreaterThan(events[read.responseIdx]!.seq);

    // Usage: what the provider reported, summed into the session.
    const usage = events.flatMap((e) => (e.actions?.tokenUsage ? [e.actions.tokenUsage] : []));
    expect(usage.length).toBeGreaterThanOrEqual(1);
    const sum = (k: "inputTokens" | "outputTokens") => usage.reduce((n, u) => n + u[k], 0);
    const reported = fake.chatRequests().map((r) => r.usage!);
    expect(sum("inputTokens")).toBe(reported.reduce((n, u) => n + u.prompt_tokens, 0));
    expect(sum("outputTokens")).toBe(reported.reduce((n, u) => n + u.completion_tokens, 0));
    expect(final.usage.inputTokens).toBe(sum("inputTokens"));
    expect(final.usage.outputTokens).toBe(sum("outputTokens"));
  });

  it("sent the provider a streaming request that carries the tool results", () => {
    const reqs = fake.chatRequests();
    for (const r of reqs) {
      expect(r.headers.authorization).toBe("Bearer x");
      expect(r.body).toMatchObject({ model: "fake-model", stream: true, stream_options: { include_usage: true } });
      const tools = (r.body.tools ?? []).map((t) => t.function.name);
      expect(tools).toEqual(expect.arrayContaining(["write_file", "read_file"]));
    }
    const first = reqs[0]!.body.messages;
    expect(messageText(first.at(-1))).toBe(USER_TEXT);
    expect(first.at(-1)?.role).toBe("user");

    const second = reqs[1]!.body.messages;
    const writeCall = second.at(-2);
    expect(writeCall?.role).toBe("assistant");
    expect(writeCall?.tool_calls?.[0]?.function.name).toBe("write_file");
    expect(JSON.parse(writeCall?.tool_calls?.[0]?.function.arguments ?? "null")).toEqual(NOTE);
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: writeCall?.tool_calls?.[0]?.id });

    const third = reqs[2]!.body.messages;
    const readCall = third.at(-2);
    expect(readCall?.tool_calls?.[0]?.function.name).toBe("read_file");
    expect(third.at(-1)).toMatchObject({ role: "tool", tool_call_id: readCall?.tool_calls?.[0]?.id });
    expect(messageText(third.at(-1))).toContain("hello from e2e");
    // Between calls the request only grows at the end: the prompt-cache prefix holds.
    expect(JSON.stringify(third.slice(0, second.length))).toBe(JSON.stringify(second));
  });

  it("shows the file in the workspace", async () => {
    const { files } = await api.files(session.id);
    expect(files).toEqual([{ path: NOTE.path, bytes: Buffer.byteLength(NOTE.content), updatedAt: expect.any(String) }]);
    const res = await api.raw("GET", `/v1/sessions/${session.id}/files/${NOTE.path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(NOTE.content);
  });

  it("verifies, and its export verifies independently", async () => {
    const v = await api.verify(session.id);
    expect(v).toEqual({ ok: true, highWater: final.highWater, headDigest: final.headDigest, problems: [] });
    const ndjson = await api.exportNdjson(session.id);
    const check = verifyExportIndependently(ndjson);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect(check.pending).toEqual([]);
    expect(check.head).toBe(final.headDigest);
    expect(check.events).toEqual(events);
  });

  it("replays every event once over the WebSocket, and only the missed ones on reconnect", async () => {
    const n = final.highWater;
    const ws = await api.connectWs(session.id, { after: 0 });
    try {
      await ws.waitForFrame((f) => f.type === "event" && f.event.seq === n, { timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 500));
      expect(ws.frames[0]?.type).toBe("ready");
      const ready = ws.frames[0] as { type: "ready"; session: Session };
      expect(ready.session).toMatchObject({ id: session.id, highWater: n, openTurn: false });
      expect(ws.events()).toEqual(events);
    } finally {
      await ws.close();
    }

    const again = await api.connectWs(session.id, { after: n - 3 });
    try {
      await again.waitForFrame((f) => f.type === "event" && f.event.seq === n, { timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 500));
      expect(again.frames[0]?.type).toBe("ready");
      expect(again.events().map((e) => e.seq)).toEqual([n - 2, n - 1, n]);
      expect(again.events()).toEqual(events.slice(-3));
    } finally {
      await again.close();
    }
  });
});
