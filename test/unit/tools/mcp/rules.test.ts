import { describe, expect, it } from "vitest";
import { createApp } from "../../../../src/http";
import { BUILTIN_TOOLS } from "../../../../src/tools";
import {
  buildToolset,
  type McpToolSpec,
  mapCallResult,
  mcpEffect,
  mcpModelName,
  parseMcpServers,
} from "../../../../src/tools/mcp";
import { mcpToolsFor } from "../../../../src/tools/mcp/toolset";

const HOSTS = "127.0.0.1:*,mcp.example.com";
const server = (over: Record<string, unknown> = {}) => ({ name: "crm", url: "https://mcp.example.com/mcp", ...over });
const parse = (value: unknown, hosts = HOSTS) => parseMcpServers(JSON.stringify(value), hosts);

describe("MCP_SERVERS", () => {
  it("accepts the documented shape and fills the defaults", () => {
    const r = parse([server({ headers: { authorization: "Bearer {{secret:CRM_TOKEN}}" }, tools: ["find"] })]);
    expect(r).toEqual({
      ok: true,
      servers: [
        {
          name: "crm",
          url: "https://mcp.example.com/mcp",
          headers: { authorization: "Bearer {{secret:CRM_TOKEN}}" },
          trust: "none",
          effects: {},
          timeoutMs: 60_000,
          tools: ["find"],
        },
      ],
    });
    expect(parseMcpServers(undefined, HOSTS)).toEqual({ ok: true, servers: [] });
  });

  it.each([
    ["not JSON", "[{", /not JSON/],
    ["a bad name", [server({ name: "CRM-1" })], /\[0\]\.\[name\].*\[a-z0-9_\]\{1,20\}/],
    ["a name of 21 characters", [server({ name: "a".repeat(21) })], /name/],
    ["a duplicate name", [server(), server()], /duplicate server name "crm"/],
    ["a host outside the allow-list", [server({ url: "https://evil.example.org/mcp" })], /HTTP_TOOL_ALLOWED_HOSTS/],
    ["a timeout under 1000 ms", [server({ timeoutMs: 999 })], /timeoutMs/],
    ["a timeout over 600000 ms", [server({ timeoutMs: 600_001 })], /timeoutMs/],
    ["an unknown effect", [server({ effects: { find: "delete" } })], /effects/],
    ["an unknown field", [server({ trusted: true })], /trusted/],
    ["not an array", server(), /expected array/],
  ])("refuses %s, naming the problem", (_what, value, message) => {
    const r = typeof value === "string" ? parseMcpServers(value, HOSTS) : parse(value);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });

  it("an invalid value answers 503 not_configured on every /v1 route, naming the problem", async () => {
    const env = { API_TOKENS: "t", HTTP_TOOL_ALLOWED_HOSTS: HOSTS, MCP_SERVERS: JSON.stringify([server(), server()]) };
    for (const path of ["/v1/sessions", "/v1/tools", "/v1/providers"]) {
      const res = await createApp().request(path, { headers: { authorization: "Bearer t" } }, env as never);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_configured");
      expect(body.error.message).toMatch(/duplicate server name "crm"/);
    }
  });
});

describe("MCP names and effects", () => {
  it("the model sees <server>__<tool>, other characters as _, cut to 64", () => {
    expect(mcpModelName("crm", "find_order")).toBe("crm__find_order");
    expect(mcpModelName("crm", "orders.find/v2")).toBe("crm__orders_find_v2");
    expect(mcpModelName("crm", "x".repeat(100))).toBe(`crm__${"x".repeat(59)}`);
    expect(mcpModelName("crm", "x".repeat(100))).toHaveLength(64);
  });

  const cfg = (trust: "annotations" | "none", effects: Record<string, "read" | "idempotent" | "write"> = {}) => ({
    trust,
    effects,
  });
  it.each([
    [cfg("none"), { readOnlyHint: true }, "write"],
    [cfg("annotations"), { readOnlyHint: true }, "read"],
    [cfg("annotations"), { idempotentHint: true }, "idempotent"],
    [cfg("annotations"), { readOnlyHint: true, idempotentHint: true }, "read"],
    [cfg("annotations"), {}, "write"],
    [cfg("annotations"), undefined, "write"],
    [cfg("annotations"), { readOnlyHint: "yes" }, "write"],
    [cfg("none", { t: "idempotent" }), undefined, "idempotent"],
    [cfg("annotations", { t: "write" }), { readOnlyHint: true }, "write"],
  ] as const)("%j with annotations %j → %s", (c, annotations, effect) => {
    expect(mcpEffect(c as never, "t", annotations)).toBe(effect);
  });
});

describe("MCP results", () => {
  it("text parts joined with a newline", () => {
    expect(
      mapCallResult({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ status: "ok", response: "a\nb" });
  });
  it("other parts kept as JSON, structuredContent as structured", () => {
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    expect(mapCallResult({ content: [{ type: "text", text: "hi" }, image], structuredContent: { n: 1 } })).toEqual({
      status: "ok",
      response: { text: "hi", content: [image], structured: { n: 1 } },
    });
  });
  it("isError is status error", () => {
    expect(mapCallResult({ content: [{ type: "text", text: "no such order" }], isError: true })).toEqual({
      status: "error",
      response: { text: "no such order" },
    });
  });
});

describe("the toolset record", () => {
  const spec = (name: string, over: Partial<McpToolSpec> = {}): McpToolSpec => ({
    name: `crm__${name}`,
    server: "crm",
    tool: name,
    description: "d",
    parameters: { type: "object" },
    effect: "read",
    ...over,
  });
  const statics = [BUILTIN_TOOLS.read_file!, BUILTIN_TOOLS.http_fetch!];

  it("names every tool with its source and effect, sorted by name", () => {
    const r = buildToolset(statics, [spec("find")], ["down"]);
    expect(r.tools.map(({ name, source, effect }) => ({ name, source, effect }))).toEqual([
      { name: "crm__find", source: "mcp:crm", effect: "read" },
      { name: "http_fetch", source: "builtin", effect: "by-arguments" },
      { name: "read_file", source: "builtin", effect: "read" },
    ]);
    expect(r.unavailable).toEqual(["down"]);
  });

  it("its digest changes with a schema, a description, an effect or an unavailable server, not with order", () => {
    const base = buildToolset(statics, [spec("a"), spec("b")], []).digest;
    expect(buildToolset(statics, [spec("b"), spec("a")], []).digest).toBe(base);
    expect(buildToolset(statics, [spec("a"), spec("b", { description: "e" })], []).digest).not.toBe(base);
    expect(buildToolset(statics, [spec("a"), spec("b", { parameters: { type: "object", x: 1 } })], []).digest).not.toBe(
      base,
    );
    expect(buildToolset(statics, [spec("a"), spec("b", { effect: "write" })], []).digest).not.toBe(base);
    expect(buildToolset(statics, [spec("a"), spec("b")], ["x"]).digest).not.toBe(base);
  });

  it("an MCP tool whose name a static tool has is left out: the model never gets one name twice", () => {
    const listing = { tools: [spec("find"), spec("send")], unavailable: [] };
    const registry = { read_file: BUILTIN_TOOLS.read_file!, crm__find: BUILTIN_TOOLS.read_file! };
    expect(mcpToolsFor(listing, undefined, registry).map((t) => t.name)).toEqual(["crm__send"]);
    expect(mcpToolsFor(listing, ["crm__find", "crm__send"], registry).map((t) => t.name)).toEqual(["crm__send"]);
    expect(mcpToolsFor(listing, ["crm__find"], {}).map((t) => t.name)).toEqual(["crm__find"]);
  });
});
