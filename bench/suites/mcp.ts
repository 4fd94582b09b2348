/**
 * MCP calls through highwater against the same call from a bare SDK client, side by side, against
 * the fake MCP server process (docs/API.md#tools):
 *
 * 1. client layer: `McpHub.call` (what a session object runs: allow-list, byte-counted answers,
 *    `_meta` key, result mapping) vs `Client.callTool` from the SDK, interleaved, in Node.
 * 2. listing: a cold hub (connect + every `tools/list` page) vs a warm one (the 5-minute cache).
 * 3. through a session: the real app, one model answer asking for CALLS lookups; each call's
 *    T1→T2 time (dispatch committed → response committed, from the events) vs the bare client's
 *    call time in the same run; and, as the peer inside highwater, as many built-in `http_fetch`
 *    GETs of a local endpoint (T1→T2 vs a bare fetch): what durable dispatch costs any tool.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpHub, type McpToolSpec, parseMcpServers } from "../../src/tools/mcp";
import { scratchDir, TOKEN } from "../lib/bench";
import { scriptedAgent, startFakeOpenAI } from "../lib/fake-openai";
import { type FakeMcpServer, startFakeMcpServer } from "../lib/mcp-server";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { clientFor, turnEnd } from "../lib/sockets";
import { fmt, latencies, type Report } from "../lib/stats";
import { startWrangler } from "../lib/wrangler";

type Latencies = ReturnType<typeof latencies>;
export type McpResults = {
  clientLayer: { bare: Latencies; highwater: Latencies; addedP50Ms: number };
  listing: { cold: Latencies; warm: Latencies };
  session: {
    t1ToT2: Latencies;
    bareSameRun: Latencies;
    httpFetchPeer: { t1ToT2: Latencies; bareFetch: Latencies };
  };
};

function hubFor(fake: FakeMcpServer): McpHub {
  const cfg = parseMcpServers(JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations" }]));
  if (!cfg.ok) throw new Error(cfg.message);
  return new McpHub(cfg.servers, { fetch, secret: () => undefined, now: Date.now });
}

async function bareClient(fake: FakeMcpServer): Promise<Client> {
  const client = new Client({ name: "bare", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(fake.url)));
  return client;
}

async function clientLayer(fake: FakeMcpServer, n: number) {
  const hub = hubFor(fake);
  const spec = (await hub.list()).tools.find((t) => t.name === "fake__lookup") as McpToolSpec;
  const bare = await bareClient(fake);
  const bareMs: number[] = [];
  const hubMs: number[] = [];
  for (let i = 0; i < n + 20; i++) {
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
  return { bare: latencies(bareMs), highwater: latencies(hubMs) };
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
  return { cold: latencies(cold), warm: latencies(warm) };
}

async function throughSession(fake: FakeMcpServer, calls: number) {
  const model = await startFakeOpenAI(
    scriptedAgent([
      {
        // Each lookup is followed by a built-in http_fetch GET of a local endpoint: the same T1→T2
        // path with highwater's own tool, the peer that shows what durability alone costs.
        toolCalls: Array.from({ length: calls }, (_, i) => [
          { name: "fake__lookup", args: { id: `o${i}` } },
          { name: "http_fetch", args: { url: fake.url.replace("/mcp", "/ping"), method: "GET" } },
        ]).flat(),
      },
      { text: "done" },
    ]),
  );
  const worker = await startWrangler({
    persistTo: scratchDir("hw-mcp-bench-"),
    vars: {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: model.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
      // The peer fetches /ping on the fake MCP server's own host, which http_fetch refuses by default.
      HTTP_TOOL_MCP_HOSTS: "allow",
      MCP_SERVERS: JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations" }]),
    },
    env: QUIET_WRANGLER_ENV,
  });
  try {
    const client = clientFor(worker.url);
    const session = await client.createSession({});
    await client.sendMessage(session.id, "look up the orders");
    await turnEnd(client, session.id, 1200);
    const { events } = await client.events(session.id, 0, 1000);
    const dispatched = new Map<string, number>();
    const perCall: number[] = [];
    const perFetch: number[] = [];
    for (const e of events) {
      const d = e.actions?.toolDispatch;
      if (d) dispatched.set(d.callId, Date.parse(e.at));
      const c = e.content;
      if (c?.type === "functionResponse" && c.callId && dispatched.has(c.callId)) {
        if (c.status !== "ok")
          throw new Error(`${c.name} answered ${c.status}: ${JSON.stringify(c.response).slice(0, 300)}`);
        (c.name === "http_fetch" ? perFetch : perCall).push(Date.parse(e.at) - dispatched.get(c.callId)!);
      }
    }
    if (perCall.length !== calls) throw new Error(`expected ${calls} calls, got ${perCall.length}`);
    const bareFetchMs: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await (await fetch(fake.url.replace("/mcp", "/ping"))).text();
      bareFetchMs.push(performance.now() - t);
    }
    const bare = await bareClient(fake);
    const bareMs: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await bare.callTool({ name: "lookup", arguments: { id: `o${i}` } });
      bareMs.push(performance.now() - t);
    }
    await bare.close();
    return {
      t1ToT2: latencies(perCall),
      bareSameRun: latencies(bareMs),
      httpFetchPeer: { t1ToT2: latencies(perFetch), bareFetch: latencies(bareFetchMs) },
    };
  } finally {
    await worker.stop();
    await model.close();
  }
}

/** `n` client-layer calls per side, `calls` MCP calls (and as many http_fetch) in one session. */
export async function runMcp(n = 300, calls = 60): Promise<McpResults> {
  const fake = await startFakeMcpServer();
  try {
    const layer = await clientLayer(fake, n);
    return {
      clientLayer: { ...layer, addedP50Ms: layer.highwater.p50 - layer.bare.p50 },
      listing: await listing(fake),
      session: await throughSession(fake, calls),
    };
  } finally {
    await fake.close();
  }
}

export function reportMcp(r: McpResults, { info, target }: Report): void {
  const { bare, highwater, addedP50Ms } = r.clientLayer;
  info(
    `MCP call, client layer: McpHub.call vs the SDK's Client.callTool (same fake server, interleaved), ms p50 / p99`,
    `${fmt(highwater.p50, 3)} / ${fmt(highwater.p99, 3)}`,
    "",
    `bare ${fmt(bare.p50, 3)} / ${fmt(bare.p99, 3)}`,
  );
  // Fails if the hub does per-call work a bare client does not: a tools/list per call, a new
  // session per call, a second serialization of the answer.
  target(
    "MCP call through highwater vs a bare SDK client: p50 added",
    `${fmt(addedP50Ms, 3)} ms`,
    `${fmt(highwater.p50, 3)} / ${fmt(bare.p50, 3)} ms`,
    "≤ 1 ms",
    addedP50Ms <= 1,
  );
  info(
    "MCP tools/list: cold hub (connect + every page) / warm (cache), ms p50",
    `${fmt(r.listing.cold.p50, 3)} / ${fmt(r.listing.warm.p50, 3)}`,
    "",
    `p99 ${fmt(r.listing.cold.p99, 3)} / ${fmt(r.listing.warm.p99, 3)}`,
  );
  const s = r.session;
  info(
    "MCP call in a session, dispatch committed → response committed (1 ms clock), ms p50 / p99",
    `${fmt(s.t1ToT2.p50, 1)} / ${fmt(s.t1ToT2.p99, 1)}`,
    "",
    `bare SDK call same run ${fmt(s.bareSameRun.p50, 2)} / ${fmt(s.bareSameRun.p99, 2)}`,
  );
  info(
    "  peer: http_fetch in the same turn, T1→T2 vs a bare fetch, ms p50",
    `${fmt(s.httpFetchPeer.t1ToT2.p50, 1)} / ${fmt(s.httpFetchPeer.bareFetch.p50, 2)}`,
  );
}
