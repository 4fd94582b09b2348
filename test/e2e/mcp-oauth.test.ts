/**
 * MCP servers behind OAuth in a real `wrangler dev` (docs/API.md#mcp-servers-behind-oauth),
 * against a local authorization server and an MCP server that requires its bearer tokens
 * (test/fakes/oauth-server.ts): discovery → authorize URL → consent → callback → a turn calls the
 * protected tool; refresh before expiry; a revoked grant is `needs_authorization` and the turn
 * goes on; another principal never uses the token; client credentials; bad and replayed state;
 * no token on disk in plaintext, nor in events, export or any answer.
 *
 *   npx vitest run --project e2e test/e2e/mcp-oauth.test.ts
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOAuth, startFakeOAuth } from "../fakes/oauth-server";
import { type Api, createApi, type Event } from "./harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "./harness/wrangler";

const A = "oauth-token-a";
const B = "oauth-token-b";
const M2M_SECRET = "m2m-client-secret-0123456789";
let oauth: FakeOAuth;
let fake: FakeOpenAI;
let worker: Wrangler;
let a: Api;
let b: Api;
let persistTo: string;
const answers: string[] = [];

beforeAll(async () => {
  oauth = await startFakeOAuth({ clientId: "m2m-client", clientSecret: M2M_SECRET });
  fake = await startFakeOpenAI(
    scriptedAgent((step, ctx) => {
      if (step > 0) return { text: "done" };
      const [name] = ctx.lastUserText.split(" ");
      return { toolCalls: [{ name: name!, args: {} }] };
    }),
  );
  persistTo = makePersistDir("hw-mcp-oauth-");
  worker = await startWrangler({
    persistTo,
    vars: {
      API_TOKENS: `${A},${B}`,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      TOKEN_ENCRYPTION_KEY: "k".repeat(40),
      M2M_SECRET,
      MCP_SERVERS: JSON.stringify([
        { name: "docs", url: oauth.mcpUrl("/mcp"), trust: "annotations", auth: { type: "oauth", scopes: ["read"] } },
        {
          name: "m2m",
          url: oauth.mcpUrl("/m2m"),
          trust: "annotations",
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientId: "m2m-client",
            clientSecret: "{{secret:M2M_SECRET}}",
          },
        },
      ]),
    },
  });
  a = createApi(worker.url, A);
  b = createApi(worker.url, B);
}, 120_000);

afterAll(async () => {
  await worker?.stop().catch(() => undefined);
  await fake?.close();
  await oauth?.close();
  if (persistTo) rmSync(persistTo, { recursive: true, force: true });
});

const get = async (token: string, path: string, init: RequestInit = {}) => {
  const res = await fetch(`${worker.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, text };
};

/** One turn calling `tool` as the api's principal: the tool's response and the turn's answer. */
async function callOnce(api: Api, tool: string) {
  const session = await api.createSession({ title: tool });
  await api.sendMessage(session.id, `${tool} {}`);
  const done = await api.waitForIdle(session.id, { timeoutMs: 40_000 });
  answers.push(JSON.stringify(done.events));
  const response = done.events.find((e: Event) => e.content?.type === "functionResponse")?.content as {
    status: string;
    response: unknown;
  };
  const last = done.events.filter((e: Event) => e.content?.type === "text").at(-1)?.content as { text?: string };
  return { id: session.id, response, answer: last?.text, status: done.session?.status };
}

/** Every file under the persistence directory, as bytes in latin1 (SQLite pages, WAL). */
function diskText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? diskText(p) : readFileSync(p).toString("latin1");
  }
  return out;
}

async function connect(token: string): Promise<{ status: number; text: string; callback: string }> {
  const started = await get(token, "/v1/mcp/docs/authorize", { method: "POST" });
  expect(started.status).toBe(200);
  const { url } = JSON.parse(started.text) as { url: string };
  expect(new URL(url).origin).toBe(oauth.asOrigin);
  expect(new URL(url).searchParams.get("code_challenge_method")).toBe("S256");
  // The user follows the URL and consents: the authorization server redirects to the callback.
  const consent = await fetch(url, { redirect: "manual" });
  const callback = consent.headers.get("location")!;
  expect(callback.startsWith(`${worker.url}/v1/oauth/callback?`)).toBe(true);
  const done = await fetch(callback);
  const text = await done.text();
  answers.push(text);
  return { status: done.status, text, callback };
}

describe("MCP servers behind OAuth", () => {
  it("unauthorized, the server is needs_authorization; client credentials list at once", async () => {
    const { status, text } = await get(A, "/v1/tools");
    expect(status).toBe(200);
    const body = JSON.parse(text) as { tools: { name: string }[]; unavailable: unknown[] };
    expect(body.unavailable).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    expect(body.tools.map((t) => t.name)).toContain("m2m__whoami");
    expect(oauth.counts.clientCredentials).toBe(1);
    const r = await callOnce(a, "docs__whoami");
    expect(r.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(r.answer).toBe("done");
    const m = await callOnce(b, "m2m__whoami");
    expect(m.response).toMatchObject({ status: "ok", response: "you are machine" });
  }, 120_000);

  it("connect: authorize → consent → callback; the token is stored encrypted and a turn calls the tool", async () => {
    const c = await connect(A);
    expect(c.status).toBe(200);
    expect(c.text).toContain("Connected docs");
    expect(oauth.counts.register).toBe(1);
    // The same callback again (replayed state): refused, nothing stored.
    const replay = await fetch(c.callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already used");
    const bad = await fetch(`${worker.url}/v1/oauth/callback?code=x&state=not-a-state`);
    expect(bad.status).toBe(400);
    expect(oauth.counts.token).toBe(2); // one client-credentials grant, one code exchange: none for bad states

    const r = await callOnce(a, "docs__whoami");
    expect(r.response).toMatchObject({ status: "ok", response: "you are user-1" });
    // Another principal: needs_authorization, never A's token.
    const other = JSON.parse((await get(B, "/v1/tools")).text) as { unavailable: unknown[] };
    expect(other.unavailable).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    const rb = await callOnce(b, "docs__whoami");
    expect(rb.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(oauth.calls.filter((x) => x.tool === "whoami" && x.sub === "user-1")).toHaveLength(1);

    const disk = diskText(persistTo);
    for (const t of oauth.issued) expect(disk.includes(t), "a token in plaintext on disk").toBe(false);
  }, 120_000);

  it("the grant survives kill -9 and a restart: a new session of its principal calls the tool", async () => {
    worker = await restartWrangler(worker);
    a = createApi(worker.url, A);
    b = createApi(worker.url, B);
    const r = await callOnce(a, "docs__whoami");
    expect(r.response).toMatchObject({ status: "ok", response: "you are user-1" });
    const rb = await callOnce(b, "docs__whoami");
    expect(rb.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
  }, 120_000);

  it("a token about to expire is refreshed before use; a revoked grant is needs_authorization and the turn goes on", async () => {
    oauth.expiresIn = 2; // refreshed after half its life
    await connect(A);
    await new Promise((r) => setTimeout(r, 1500));
    const before = oauth.counts.refresh;
    const r = await callOnce(a, "docs__whoami");
    expect(r.response).toMatchObject({ status: "ok", response: "you are user-2" });
    expect(oauth.counts.refresh).toBeGreaterThan(before);
    oauth.expiresIn = 3600;

    oauth.revokeAll();
    const gone = await callOnce(a, "docs__whoami");
    expect(gone.response).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(gone.answer).toBe("done");
    const tools = JSON.parse((await get(A, "/v1/tools")).text) as { unavailable: unknown[] };
    expect(tools.unavailable).toContainEqual({ server: "docs", reason: "needs_authorization" });
  }, 120_000);

  it("no token in any answer, event or export", async () => {
    const list = JSON.parse((await get(A, "/v1/sessions")).text) as { sessions: { id: string }[] };
    for (const s of list.sessions) answers.push(await a.exportNdjson(s.id));
    const all = answers.join("\n");
    expect(oauth.issued.length).toBeGreaterThan(3);
    for (const t of oauth.issued) expect(all.includes(t), "a token in an answer").toBe(false);
    expect(all.includes(M2M_SECRET)).toBe(false);
  }, 60_000);
});
