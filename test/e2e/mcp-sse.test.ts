/**
 * MCP answers over SSE in the Worker runtime (docs/API.md#mcp-servers): a real `wrangler dev`
 * calls a real MCP server process that answers over SSE and counts every call. An answer over
 * 10 MiB or cut off mid-event is `tool_failed` at once (with `timeoutMs` 60 s, a wait for the
 * timeout would fail the test), and a `write` tool is called exactly once.
 *
 *   npx vitest run --project e2e test/e2e/mcp-sse.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeMcpServer, type FakeMode, startFakeMcpServer } from "../fakes/start-mcp-server";
import { type Api, createApi, type Event } from "./harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "mcp-sse-token";
const TIMEOUT_MS = 60_000;
let mcp: FakeMcpServer;
let fake: FakeOpenAI;
let worker: Wrangler;
let api: Api;
let persistTo: string;

beforeAll(async () => {
  mcp = await startFakeMcpServer();
  // The user's message names the tool and its arguments as JSON: `<tool> <args>`.
  fake = await startFakeOpenAI(
    scriptedAgent((step, ctx) => {
      if (step > 0) return { text: "done" };
      const [name, args] = ctx.lastUserText.split(/ (.*)/s);
      return { toolCalls: [{ name: name!, args: JSON.parse(args!) }] };
    }),
  );
  persistTo = makePersistDir("hw-mcp-sse-");
  worker = await startWrangler({
    persistTo,
    vars: {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
      MCP_SERVERS: JSON.stringify([{ name: "fake", url: mcp.url, trust: "annotations", timeoutMs: TIMEOUT_MS }]),
    },
  });
  api = createApi(worker.url, TOKEN);
}, 120_000);

afterAll(async () => {
  await worker?.stop().catch(() => undefined);
  await fake?.close();
  await mcp?.close();
  if (persistTo) rmSync(persistTo, { recursive: true, force: true });
});

/** One turn calling `tool`: its response event, the server's calls, and how long the turn took. */
async function callOnce(mode: FakeMode, tool: string, args: Record<string, unknown>) {
  await mcp.reset();
  await mcp.mode(mode);
  const session = await api.createSession({ title: `${mode} ${tool}` });
  const t0 = Date.now();
  await api.sendMessage(session.id, `${tool} ${JSON.stringify(args)}`);
  const done = await api.waitForIdle(session.id, { timeoutMs: 40_000 });
  const ms = Date.now() - t0;
  const response = done.events.find((e: Event) => e.content?.type === "functionResponse")?.content as {
    status: string;
    response: { code?: string; message?: string } | string;
  };
  return { response, ms, seen: await mcp.calls() };
}

describe("MCP answers over SSE in the Worker", () => {
  it("a normal SSE answer is the result", async () => {
    const { response, seen } = await callOnce("sse", "fake__send", { to: "ops", text: "hi" });
    expect(response).toMatchObject({ status: "ok", response: "sent #1 to ops" });
    expect(seen.calls).toHaveLength(1);
  }, 90_000);

  it.each([
    ["sse-huge", "fake__lookup", { id: "A-7" }, /exceeds 10485760 bytes/],
    ["sse-huge", "fake__send", { to: "ops", text: "hi" }, /exceeds 10485760 bytes/],
    ["sse-cut", "fake__send", { to: "ops", text: "hi" }, /cut off.*may have taken effect/],
  ] as const)(
    "%s answer to %s is tool_failed at once, after exactly one call",
    async (mode, tool, args, says) => {
      const { response, ms, seen } = await callOnce(mode, tool, args);
      expect(response).toMatchObject({ status: "error", response: { code: "tool_failed" } });
      expect(JSON.stringify(response.response)).toMatch(says);
      expect(seen.calls).toHaveLength(1);
      expect(ms).toBeLessThan(40_000);
    },
    90_000,
  );
});
