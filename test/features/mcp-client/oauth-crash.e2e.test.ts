/**
 * MCP OAuth across kill -9 (docs/API.md#mcp-servers-behind-oauth, docs/design.md §5): `wrangler
 * dev` is killed with SIGKILL at F20 (the callback exchanged its code for tokens, the grant not
 * yet stored) or at F21 (the authorization server answered a refresh, the new tokens not yet
 * stored; it rotates refresh tokens, so the old one is spent), restarted on the same persist dir,
 * and what the user sees is checked: the server's state in `GET /v1/tools`, the used `state`
 * refused, a new authorization, a turn that goes on, and no token in any answer or in wrangler's
 * output.
 *
 *   npx vitest run --project e2e test/features/mcp-client/oauth-crash.e2e.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, type Event } from "../../e2e/harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "../../e2e/harness/fake-openai";
import {
  type FailpointSink,
  makePersistDir,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../../e2e/harness/wrangler";
import { type FakeOAuth, startFakeOAuth } from "../../fakes/oauth-server";

const TOKEN = "oauth-crash-token";
let oauth: FakeOAuth;
let fake: FakeOpenAI;
let sink: FailpointSink;
const cleanups: (() => unknown)[] = [];
const answers: string[] = [];
const logs: string[] = [];
const table: string[] = [];

beforeAll(async () => {
  oauth = await startFakeOAuth({ clientId: "unused", clientSecret: "unused" });
  fake = await startFakeOpenAI(
    scriptedAgent((step, ctx) => {
      if (step > 0) return { text: "done" };
      return { toolCalls: [{ name: ctx.lastUserText.split(" ")[0]!, args: {} }] };
    }),
  );
  sink = await startFailpointSink();
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  await sink?.close();
  await fake?.close();
  await oauth?.close();
  if (table.length) console.log(["| killed at | what the user sees |", "| --- | --- |", ...table].join("\n"));
});

const varsOf = () => ({
  API_TOKENS: TOKEN,
  MODEL_PROVIDER: "openai",
  MODEL_BASE_URL: fake.url,
  MODEL_API_KEY: "x",
  MODEL_NAME: "fake-model",
  TOKEN_ENCRYPTION_KEY: "c".repeat(40),
  MCP_SERVERS: JSON.stringify([
    { name: "docs", url: oauth.mcpUrl("/mcp"), trust: "annotations", auth: { type: "oauth", scopes: ["read"] } },
  ]),
});

async function start(persistTo: string, failpoint?: "F20" | "F21"): Promise<Wrangler> {
  const vars = failpoint ? { ...varsOf(), HW_FAILPOINT: failpoint, HW_FAILPOINT_URL: sink.url } : varsOf();
  const w = await startWrangler({ persistTo, vars });
  cleanups.push(async () => {
    logs.push(w.logs());
    if (!w.exited) await w.kill9();
  });
  return w;
}

async function get(w: Wrangler, path: string, init: RequestInit = {}) {
  const res = await fetch(`${w.url}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, text };
}

const unavailable = async (w: Wrangler) =>
  (JSON.parse((await get(w, "/v1/tools")).text) as { unavailable: { server: string; reason: string }[] }).unavailable;

/** `POST /v1/mcp/docs/authorize` and the consent: the callback URL the browser would be sent to. */
async function consent(w: Wrangler): Promise<string> {
  const started = await get(w, "/v1/mcp/docs/authorize", { method: "POST" });
  expect(started.status).toBe(200);
  const to = await fetch((JSON.parse(started.text) as { url: string }).url, { redirect: "manual" });
  return to.headers.get("location")!;
}

async function callback(url: string) {
  const res = await fetch(url);
  const text = await res.text();
  answers.push(text);
  return { status: res.status, text };
}

/** One turn calling `docs__whoami`: the call's response and the turn's last text. */
async function turn(w: Wrangler) {
  const api = createApi(w.url, TOKEN);
  const session = await api.createSession({ title: "whoami" });
  await api.sendMessage(session.id, "docs__whoami {}");
  const done = await api.waitForIdle(session.id, { timeoutMs: 60_000 });
  answers.push(JSON.stringify(done.events));
  const response = done.events.find((e: Event) => e.content?.type === "functionResponse")?.content as {
    status: string;
    response: unknown;
  };
  const last = done.events.filter((e: Event) => e.content?.type === "text").at(-1)?.content as { text?: string };
  expect((await api.verify(session.id)).ok).toBe(true);
  return { response, answer: last?.text };
}

describe("MCP OAuth: kill -9 during the callback and mid-refresh", () => {
  it("F20: code exchanged, grant not stored → still needs_authorization; the state is spent; a new authorization works", async () => {
    const persistTo = makePersistDir("hw-oauth-f20-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    let w = await start(persistTo, "F20");
    const url = await consent(w);
    const tokensBefore = oauth.counts.token;
    const hanging = fetch(url).catch(() => null);
    await sink.waitFor("F20", 60_000);
    expect(oauth.counts.token).toBe(tokensBefore + 1); // the code was exchanged
    await w.kill9();
    await hanging;

    w = await start(persistTo);
    expect(await unavailable(w)).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    // The same callback again (on the restarted worker's port): the state was used up before the
    // exchange; nothing is exchanged or stored.
    const replay = await callback(`${w.url}${new URL(url).pathname}${new URL(url).search}`);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain("already used");
    expect(oauth.counts.token).toBe(tokensBefore + 1);
    expect(await unavailable(w)).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    const off = await turn(w);
    expect(off.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(off.answer).toBe("done");

    const again = await callback(await consent(w));
    expect(again.status).toBe(200);
    expect(again.text).toContain("Connected docs");
    expect(await unavailable(w)).toEqual([]);
    const on = await turn(w);
    expect(on.response).toMatchObject({ status: "ok", response: expect.stringMatching(/^you are user-\d+$/) });
    table.push(
      "| F20: the callback exchanged the code, the grant not yet stored | the server is still `needs_authorization`; the same callback URL again is 400 and stores nothing; Connect again works and a turn calls the tool |",
    );
  }, 240_000);

  it("F21: refresh answered, new tokens not stored → needs_authorization (the old refresh token is spent), the turn goes on, a new authorization works", async () => {
    const persistTo = makePersistDir("hw-oauth-f21-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    let w = await start(persistTo, "F21");
    oauth.expiresIn = 2; // refreshed after half its life
    const first = await callback(await consent(w));
    expect(first.status).toBe(200);
    oauth.expiresIn = 3600;
    await new Promise((r) => setTimeout(r, 2_500));
    const refreshes = oauth.counts.refresh;
    const hanging = fetch(`${w.url}/v1/tools`, { headers: { authorization: `Bearer ${TOKEN}` } }).catch(() => null);
    await sink.waitFor("F21", 60_000);
    expect(oauth.counts.refresh).toBe(refreshes + 1); // the authorization server rotated the refresh token
    await w.kill9();
    await hanging;

    w = await start(persistTo);
    // The stored refresh token was spent by the lost refresh: refused, the grant dropped.
    const off = await turn(w);
    expect(off.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(off.answer).toBe("done");
    expect(await unavailable(w)).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    expect(oauth.counts.refresh).toBeGreaterThanOrEqual(refreshes + 2);

    expect((await callback(await consent(w))).status).toBe(200);
    expect(await unavailable(w)).toEqual([]);
    const on = await turn(w);
    expect(on.response).toMatchObject({ status: "ok", response: expect.stringMatching(/^you are user-\d+$/) });
    table.push(
      "| F21: the authorization server answered a refresh (rotating the refresh token), the new tokens not yet stored | the server is `needs_authorization` (its stored refresh token was spent); a turn calling it gets `tool_unavailable` and goes on; Connect again works |",
    );
  }, 240_000);

  it("no token in any answer or in wrangler's output", async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
    const all = `${answers.join("\n")}\n${logs.join("\n")}`;
    expect(oauth.issued.length).toBeGreaterThan(4);
    for (const t of oauth.issued) expect(all.includes(t), "a token in an answer or a log").toBe(false);
  }, 60_000);
});
