/**
 * What a server says of its tools, bounded and cleaned before it reaches the model, the log and
 * `GET /v1/tools` (docs/API.md#mcp-servers): byte caps, secrets redacted, failures cached, one
 * listing shared. Against an in-process MCP server (the SDK's own).
 */
import { describe, expect, it } from "vitest";
import {
  FAILED_LISTING_TTL_MS,
  LISTING_TTL_MS,
  MCP_TOOL_BOUNDS,
  McpHub,
  mcpHubFor,
  parseMcpServers,
} from "../../../../src/tools/mcp";
import { type FakeTool, inWorkerMcp } from "../../../fakes/mcp-in-worker";

const URL_ = "http://crm.mcp.test/mcp";
function hubOver(tools: FakeTool[], clock = { now: 0 }) {
  const fake = inWorkerMcp(tools);
  const cfg = parseMcpServers(JSON.stringify([{ name: "crm", url: URL_, trust: "annotations", timeoutMs: 1000 }]));
  if (!cfg.ok) throw new Error(cfg.message);
  const sent = { requests: 0 };
  const counting: typeof fetch = (input, init) => {
    sent.requests++;
    return fake.fetch(input, init);
  };
  const hub = new McpHub(cfg.servers, { fetch: counting, secret: () => undefined, now: () => clock.now });
  return { fake, hub, clock, sent };
}
const lists = (fake: { requests: string[] }) => fake.requests.filter((m) => m === "tools/list").length;

describe("byte bounds", () => {
  it("a tool whose description or schema is over its cap is skipped; the server's other tools stay", async () => {
    const { hub } = hubOver([
      { name: "ok" },
      { name: "long_text", description: "x".repeat(MCP_TOOL_BOUNDS.descriptionBytes + 1) },
      { name: "edge_text", description: "é".repeat(MCP_TOOL_BOUNDS.descriptionBytes / 2) },
      {
        name: "big_schema",
        inputSchema: { type: "object", properties: { a: { type: "string", description: "y".repeat(70_000) } } },
      },
    ]);
    const l = await hub.list();
    expect(l.unavailable).toEqual([]);
    expect(l.tools.map((t) => t.tool)).toEqual(["ok", "edge_text"]);
  });

  it("a server whose tools add up to more than 1 MiB is unavailable; listing does not throw", async () => {
    // 80 tools of 15 KiB each: each under its cap, 1.2 MiB together.
    const tools = Array.from({ length: 80 }, (_, i) => ({ name: `t${i}`, description: "z".repeat(15 * 1024) }));
    const { hub } = hubOver(tools);
    expect(await hub.list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "crm", reason: "unreachable" }],
    });
  });
});

describe("secrets in what a server says of its tools", () => {
  it("a secret value in a description or schema is redacted before it reaches the model, the log or GET /v1/tools", async () => {
    const TOKEN = "crm-T0KEN-value-42";
    const fake = inWorkerMcp([
      {
        name: "find",
        description: `Find things. Debug: sent Bearer ${TOKEN} (${btoa(TOKEN)})`,
        inputSchema: { type: "object", properties: { q: { type: "string", default: encodeURIComponent(TOKEN) } } },
      },
    ]);
    const env = {
      MCP_SERVERS: JSON.stringify([
        { name: "crm", url: URL_, headers: { authorization: "Bearer {{secret:CRM_TOKEN}}" } },
      ]),
      CRM_TOKEN: TOKEN,
    };
    const [tool] = (await mcpHubFor(env, { fetch: fake.fetch }).list()).tools;
    const text = JSON.stringify(tool);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(btoa(TOKEN).slice(0, 16));
    expect(tool!.description).toBe("Find things. Debug: sent Bearer [secret:CRM_TOKEN] ([secret:CRM_TOKEN])");
    expect(tool!.parameters).toMatchObject({ properties: { q: { default: "[secret:CRM_TOKEN]" } } });
  });
});

describe("listing cache", () => {
  it("a failed listing is remembered for 30 s (a success for 5 minutes): a down server is not asked on every turn", async () => {
    const { fake, hub, clock, sent } = hubOver([{ name: "ok" }]);
    fake.down = true;
    expect((await hub.list()).unavailable).toEqual([{ server: "crm", reason: "unreachable" }]);
    const asked = sent.requests;
    expect(asked).toBeGreaterThan(0);
    fake.down = false;
    clock.now = FAILED_LISTING_TTL_MS - 1;
    expect((await hub.list()).unavailable).toEqual([{ server: "crm", reason: "unreachable" }]);
    expect(sent.requests).toBe(asked);
    clock.now = FAILED_LISTING_TTL_MS;
    expect((await hub.list()).tools.map((t) => t.tool)).toEqual(["ok"]);
    const listed = lists(fake);
    clock.now += LISTING_TTL_MS - 1;
    await hub.list();
    expect(lists(fake)).toBe(listed);
  });

  it("concurrent callers share one listing", async () => {
    const { fake, hub } = hubOver([{ name: "ok" }]);
    const all = await Promise.all(Array.from({ length: 5 }, () => hub.list()));
    expect(all.map((l) => l.tools.length)).toEqual([1, 1, 1, 1, 1]);
    expect(lists(fake)).toBe(1);
  });
});
