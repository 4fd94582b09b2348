/** The MCP client and listing against a real MCP server process (bench/lib/fake-mcp-server.mjs). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../../../src/http";
import { McpHub, type McpToolSpec, parseMcpServers } from "../../../../src/tools/mcp";
import { type FakeMcpServer, startFakeMcpServer } from "../../../fakes/start-mcp-server";

let fake: FakeMcpServer;
beforeAll(async () => {
  fake = await startFakeMcpServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const HOSTS = "127.0.0.1:*";
function hubOf(over: Record<string, unknown> = {}, clock = { now: 0 }, f: typeof fetch = fetch) {
  const cfg = parseMcpServers(
    JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations", timeoutMs: 1000, ...over }]),
  );
  if (!cfg.ok) throw new Error(cfg.message);
  return new McpHub(cfg.servers, { fetch: f, secret: () => undefined, now: () => clock.now });
}
const signal = () => new AbortController().signal;
const spec = (hub: McpHub, name: string) => hub.list().then((l) => l.tools.find((t) => t.name === name) as McpToolSpec);

describe("listing", () => {
  it("follows nextCursor to the end, with names, schemas and effects from the annotations", async () => {
    const l = await hubOf().list();
    expect(l.unavailable).toEqual([]);
    // 4 tools in pages of 2: every page was read.
    expect(l.tools.map((t) => [t.name, t.tool, t.effect])).toEqual([
      ["fake__lookup", "lookup", "read"],
      ["fake__upsert", "upsert", "idempotent"],
      ["fake__send", "send", "write"],
      ["fake__sleep", "sleep", "read"],
    ]);
    expect(l.tools[0]!.parameters).toMatchObject({ type: "object", required: ["id"] });
    expect(l.tools[0]!.description).toBe("Look up an order by id");
  });

  it("trust none makes every tool write; effects win; the tools list filters", async () => {
    const l = await hubOf({ trust: "none", effects: { send: "idempotent" }, tools: ["lookup", "send"] }).list();
    expect(l.tools.map((t) => [t.name, t.effect])).toEqual([
      ["fake__lookup", "write"],
      ["fake__send", "idempotent"],
    ]);
  });

  it("is cached for 5 minutes", async () => {
    const clock = { now: 0 };
    let lists = 0;
    const counting: typeof fetch = async (i, init) => {
      if (typeof init?.body === "string" && init.body.includes('"tools/list"')) lists++;
      return fetch(i, init);
    };
    const hub = hubOf({}, clock, counting);
    await hub.list();
    const pages = lists;
    clock.now = 5 * 60 * 1000 - 1;
    await hub.list();
    expect(lists).toBe(pages);
    clock.now = 5 * 60 * 1000;
    await hub.list();
    expect(lists).toBe(pages * 2);
  });

  it.each([
    ["answers garbage", "garbage"],
    ["lists 10,000 tools", "many"],
    ["answers 503", "down"],
  ] as const)("a server that %s is unavailable, and listing does not throw", async (_what, mode) => {
    await fake.mode(mode);
    expect(await hubOf().list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "fake", reason: "unreachable" }],
    });
  });

  it("a tool whose input schema is not an object is skipped; the server's other tools stay", async () => {
    await fake.mode("badschema");
    const l = await hubOf().list();
    expect(l.unavailable).toEqual([]);
    expect(l.tools.map((t) => t.tool)).toEqual(["lookup", "upsert", "send", "sleep"]);
  });

  it("a server nobody listens on is unavailable", async () => {
    const cfg = parseMcpServers(JSON.stringify([{ name: "gone", url: "http://127.0.0.1:9/mcp" }]));
    const hub = new McpHub(cfg.ok ? cfg.servers : [], {
      fetch,
      secret: () => undefined,
      now: () => 0,
    });
    expect(await hub.list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "gone", reason: "unreachable" }],
    });
  });
});

describe("headers", () => {
  it("{{secret:NAME}} is filled from the Worker's vars when the request is sent; a missing one sends nothing", async () => {
    const cfg = parseMcpServers(
      JSON.stringify([{ name: "fake", url: fake.url, headers: { authorization: "Bearer {{secret:CRM_TOKEN}}" } }]),
    );
    if (!cfg.ok) throw new Error(cfg.message);
    const seen: (string | null)[] = [];
    const capture: typeof fetch = async (i, init) => {
      seen.push(new Headers(init?.headers).get("authorization"));
      return fetch(i, init);
    };
    const vars: Record<string, string> = { CRM_TOKEN: "s3cret" };
    const hub = () => new McpHub(cfg.servers, { fetch: capture, secret: (n) => vars[n], now: () => 0 });
    expect((await hub().list()).unavailable).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["Bearer s3cret"]));
    delete vars.CRM_TOKEN;
    seen.length = 0;
    expect(await hub().list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "fake", reason: "unreachable" }],
    });
    expect(seen).toEqual([]);
  });
});

describe("calls", () => {
  it("sends the arguments as written and the idempotency key in _meta; maps text and structured", async () => {
    const hub = hubOf();
    const r = await hub.call(await spec(hub, "fake__lookup"), { id: "A-7" }, "hw_key1", signal());
    expect(r).toEqual({
      status: "ok",
      response: { text: "order A-7: shipped", structured: { id: "A-7", status: "shipped" } },
    });
    expect((await fake.calls()).calls).toEqual([{ tool: "lookup", key: "hw_key1", args: { id: "A-7" } }]);
  });

  it("a read call with no answer in time is retried twice with the same key, then tool_timeout", async () => {
    const hub = hubOf();
    const r = await hub.call(await spec(hub, "fake__sleep"), { ms: 1500 }, "hw_slow", signal());
    expect(r).toMatchObject({ status: "error", response: { code: "tool_timeout" } });
    expect((await fake.calls()).calls.map((c) => c.key)).toEqual(["hw_slow", "hw_slow", "hw_slow"]);
  });

  it("a write call that fails is not retried: tool_failed after one call", async () => {
    const hub = hubOf();
    const send = await spec(hub, "fake__send");
    const r = await hub.call(send, { to: "x", text: "hi", sleepMs: 1500 }, "hw_w", signal());
    expect(r).toMatchObject({ status: "error", response: { code: "tool_timeout" } });
    expect((await fake.calls()).calls).toHaveLength(1);
    await fake.mode("down");
    const down = await hub.call(send, { to: "x", text: "hi" }, "hw_w2", signal());
    expect(down).toMatchObject({ status: "error", response: { code: "tool_failed" } });
  });

  it("an answer over 10 MiB is tool_failed, not a crash, and not asked for again", async () => {
    // A long timeout: 11 MiB over loopback can take seconds on a loaded machine, and the verdict
    // must come from the size, not from a race with the clock.
    const hub = hubOf({ timeoutMs: 30_000 });
    const lookup = await spec(hub, "fake__lookup");
    await fake.mode("huge");
    const r = await hub.call(lookup, { id: "1" }, "hw_big", signal());
    expect(r).toMatchObject({ status: "error", response: { code: "tool_failed" } });
    expect(JSON.stringify(r.response)).toMatch(/exceeds 10485760 bytes/);
    expect((await fake.calls()).calls).toHaveLength(1);
  });

  it("a server restarted between calls is connected to again", async () => {
    const hub = hubOf();
    const lookup = await spec(hub, "fake__lookup");
    expect((await hub.call(lookup, { id: "1" }, "k1", signal())).status).toBe("ok");
    const port = fake.port;
    await fake.close();
    fake = await startFakeMcpServer(port);
    expect((await hub.call(lookup, { id: "2" }, "k2", signal())).status).toBe("ok");
  });

  it("a stop aborts the call", async () => {
    const hub = hubOf({ timeoutMs: 10_000 });
    const sleep = await spec(hub, "fake__sleep");
    const stop = new AbortController();
    const pending = hub.call(sleep, { ms: 5000 }, "k", stop.signal);
    setTimeout(() => stop.abort(), 200);
    expect(await pending).toMatchObject({ status: "error", response: { code: "aborted" } });
    expect((await fake.calls()).calls).toHaveLength(1);
  });
});

describe("GET /v1/tools", () => {
  it("lists the built-ins (http_fetch by arguments) and each server's tools with source and effect", async () => {
    const env = {
      API_TOKENS: "t",
      HTTP_TOOL_ALLOWED_HOSTS: HOSTS,
      MCP_SERVERS: JSON.stringify([
        { name: "fake", url: fake.url, trust: "annotations" },
        { name: "gone", url: "http://127.0.0.1:9/mcp" },
      ]),
    };
    const res = await createApp().request("/v1/tools", { headers: { authorization: "Bearer t" } }, env as never);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: any[]; unavailable: unknown[] };
    expect(body.unavailable).toEqual([{ server: "gone", reason: "unreachable" }]);
    const byName = Object.fromEntries(body.tools.map((t) => [t.name, t]));
    expect(byName.http_fetch).toMatchObject({ source: "builtin", effect: "by-arguments" });
    expect(byName.read_file).toMatchObject({ source: "builtin", effect: "read" });
    expect(byName.write_file).toMatchObject({ source: "builtin", effect: "write" });
    expect(byName.fake__upsert).toMatchObject({
      source: "mcp:fake",
      effect: "idempotent",
      description: "Set a value by id (keyed: a repeated key changes nothing)",
      inputSchema: { type: "object", required: ["id", "value"] },
    });
  });

  it("a new session naming a tool that no server lists is 400, in tools and in approval rules", async () => {
    const env = {
      API_TOKENS: "t",
      HTTP_TOOL_ALLOWED_HOSTS: HOSTS,
      MCP_SERVERS: JSON.stringify([{ name: "fake", url: fake.url }]),
    };
    for (const json of [{ tools: ["fake__nope"] }, { approvals: [{ tool: "fake__nope" }] }]) {
      const res = await createApp().request(
        "/v1/sessions",
        { method: "POST", body: JSON.stringify(json), headers: { authorization: "Bearer t" } },
        env as never,
      );
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toMatch(/fake__nope/);
    }
  });
});
