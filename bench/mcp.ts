/**
 * MCP calls through highwater against the same call from a bare SDK client, side by side
 * (`node bench/mcp.mjs`), against the fake MCP server process of the tests:
 *
 * 1. client layer: `McpHub.call` (what a session object runs: allow-list, byte-counted answers,
 *    `_meta` key, result mapping) vs `Client.callTool` from the SDK, interleaved, in Node.
 * 2. listing: a cold hub (connect + every `tools/list` page) vs a warm one (the 5-minute cache).
 * 3. through a session: a real `wrangler dev`, one model answer asking for CALLS lookups; each
 *    call's T1→T2 time (dispatch committed → response committed, from the events, ms) vs the bare
 *    client's call time measured in the same run; and, as the peer inside highwater, as many
 *    built-in `http_fetch` GETs of a local endpoint (T1→T2 vs a bare fetch): what the durable
 *    dispatch (T1 committed before the request may leave, T2 after) costs any tool.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpHub, type McpToolSpec, parseMcpServers } from "../src/tools/mcp";
import { scriptedAgent, startFakeOpenAI } from "../test/e2e/harness/fake-openai";
import { makePersistDir, REPO_ROOT, startWrangler } from "../test/e2e/harness/wrangler";
import { type FakeMcpServer, startFakeMcpServer } from "../test/fakes/start-mcp-server";

type BenchEvent = {
  at: string;
  actions?: { toolDispatch?: { callId: string } };
  content?: { type: string; name: string; callId?: string; status?: string };
};

const N = Number(process.env.MCP_BENCH_N ?? 300);
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 60);

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return {
    n: s.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    mean: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
}
const round = (x: number) => Math.round(x * 1000) / 1000;

function hubFor(fake: FakeMcpServer): McpHub {
  const cfg = parseMcpServers(JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations" }]), "127.0.0.1:*");
  if (!cfg.ok) throw new Error(cfg.message);
  return new McpHub(cfg.servers, { fetch, allowedHosts: ["127.0.0.1:*"], secret: () => undefined, now: Date.now });
}

async function bareClient(fake: FakeMcpServer): Promise<Client> {
  const client = new Client({ name: "bare", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(fake.url)));
  return client;
}

async function clientLayer(fake: FakeMcpServer) {
  const hub = hubFor(fake);
  const spec = (await hub.list()).tools.find((t) => t.name === "fake__lookup") as McpToolSpec;
  const bare = await bareClient(fake);
  const bareMs: number[] = [];
  const hubMs: number[] = [];
  for (let i = 0; i < N + 20; i++) {
    let t = performance.now();
    await bare.callTool({
      name: "lookup",
      arguments: { id: String(i) },
      _meta: { "io.highwater/idempotency-key": `k${i}` },
    });
    const b = performance.now() - t;
    t = performance.now();
    const r = await hub.call(spec, { id: String(i) }, `k${i}`, new AbortController().signal);
    const h = performance.now() - t;
    if (r.status !== "ok") throw new Error(JSON.stringify(r));
    if (i >= 20) {
      bareMs.push(b);
      hubMs.push(h);
    }
  }
  await bare.close();
  return { bare: stats(bareMs), highwater: stats(hubMs) };
}

async function listing(fake: FakeMcpServer) {
  const cold: number[] = [];
  for (let i = 0; i < 50; i++) {
    const hub = hubFor(fake);
    const t = performance.now();
    await hub.list();
    cold.push(performance.now() - t);
  }
  const hub = hubFor(fake);
  await hub.list();
  const warm: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    await hub.list();
    warm.push(performance.now() - t);
  }
  return { cold: stats(cold), warm: stats(warm) };
}

async function throughSession(fake: FakeMcpServer) {
  const model = await startFakeOpenAI(
    scriptedAgent([
      {
        // Each lookup is followed by a built-in http_fetch GET of a local endpoint: the same T1→T2
        // path with highwater's own tool, the peer that shows what durability alone costs.
        toolCalls: Array.from({ length: CALLS }, (_, i) => [
          { name: "fake__lookup", args: { id: `o${i}` } },
          { name: "http_fetch", args: { url: fake.url.replace("/mcp", "/ping"), method: "GET" } },
        ]).flat(),
      },
      { text: "done" },
    ]),
  );
  const token = "bench-mcp-token";
  const worker = await startWrangler({
    persistTo: makePersistDir("hw-mcp-bench-"),
    vars: {
      API_TOKENS: token,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: model.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
      MCP_SERVERS: JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations" }]),
    },
    env: { WRANGLER_SEND_METRICS: "false" },
  });
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${worker.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as { id: string; openTurn: boolean; events: BenchEvent[] };
    };
    const session = await call("POST", "/v1/sessions", {});
    await call("POST", `/v1/sessions/${session.id}/messages`, { text: "look up the orders" });
    for (let i = 0; (await call("GET", `/v1/sessions/${session.id}`)).openTurn; i++) {
      if (i > 1200) throw new Error("the turn did not close");
      await new Promise((r) => setTimeout(r, 100));
    }
    const events = (await call("GET", `/v1/sessions/${session.id}/events?limit=1000`)).events;
    const dispatched = new Map<string, number>();
    const perCall: number[] = [];
    const perFetch: number[] = [];
    for (const e of events) {
      const d = e.actions?.toolDispatch;
      if (d) dispatched.set(d.callId, Date.parse(e.at));
      const c = e.content;
      if (c?.type === "functionResponse" && c.callId && dispatched.has(c.callId)) {
        if (c.status !== "ok") throw new Error(`${c.name} answered ${c.status}`);
        (c.name === "http_fetch" ? perFetch : perCall).push(Date.parse(e.at) - dispatched.get(c.callId)!);
      }
    }
    if (perCall.length !== CALLS) throw new Error(`expected ${CALLS} calls, got ${perCall.length}`);
    const bareFetchMs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await (await fetch(fake.url.replace("/mcp", "/ping"))).text();
      bareFetchMs.push(performance.now() - t);
    }
    const bare = await bareClient(fake);
    const bareMs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await bare.callTool({ name: "lookup", arguments: { id: `o${i}` } });
      bareMs.push(performance.now() - t);
    }
    await bare.close();
    return {
      t1ToT2: stats(perCall),
      bareSameRun: stats(bareMs),
      httpFetchPeer: { t1ToT2: stats(perFetch), bareFetch: stats(bareFetchMs) },
    };
  } finally {
    await worker.stop();
    await model.close();
  }
}

export async function main() {
  const fake = await startFakeMcpServer();
  try {
    const layer = await clientLayer(fake);
    const list = await listing(fake);
    const session = await throughSession(fake);
    const result = {
      at: new Date().toISOString(),
      clientLayer: { ...layer, addedP50Ms: round(layer.highwater.p50 - layer.bare.p50) },
      listing: list,
      session: {
        ...session,
        addedP50Ms: round(session.t1ToT2.p50 - session.bareSameRun.p50),
        httpFetchAddedP50Ms: round(session.httpFetchPeer.t1ToT2.p50 - session.httpFetchPeer.bareFetch.p50),
      },
    };
    console.log(JSON.stringify(result, null, 2));
    const dir = join(REPO_ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "mcp-latest.json"), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await fake.close();
  }
}
