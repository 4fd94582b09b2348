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

const server = (over: Record<string, unknown> = {}) => ({ name: "crm", url: "https://mcp.example.com/mcp", ...over });
const parse = (value: unknown) => parseMcpServers(JSON.stringify(value));

describe("MCP_SERVERS", () => {
  it("accepts the documented shape and fills the defaults; its host need not be in HTTP_TOOL_ALLOWED_HOSTS", () => {
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
          taskTimeoutMs: 3_600_000,
          tools: ["find"],
          auth: null,
        },
      ],
    });
    expect(parseMcpServers(undefined)).toEqual({ ok: true, servers: [] });
  });

  it.each([
    ["not JSON", "[{", /^MCP_SERVERS is not valid JSON$/],
    ["a bad name", [server({ name: "CRM-1" })], /^MCP_SERVERS\[0\]\.name: must match \[a-z0-9_\]\{1,20\}$/],
    ["a name of 21 characters", [server({ name: "a".repeat(21) })], /\[0\]\.name/],
    ["a duplicate name", [server(), server()], /^MCP_SERVERS\[1\]\.name: another server has this name$/],
    ["a URL that is not http(s)", [server({ url: "ftp://mcp.example.com/" })], /\[0\]\.url: must be an absolute http/],
    [
      "a URL with credentials",
      [server({ url: "https://u:p@mcp.example.com/" })],
      /\[0\]\.url: must not hold credentials/,
    ],
    ["a timeout under 1000 ms", [server({ timeoutMs: 999 })], /\[0\]\.timeoutMs: must be an integer from 1000/],
    ["a timeout over 600000 ms", [server({ timeoutMs: 600_001 })], /timeoutMs/],
    ["an unknown effect", [server({ effects: { find: "delete" } })], /\[0\]\.effects: must be an object/],
    ["an unknown field", [server({ trusted: true })], /\[0\]: "trusted" is not a field of a server/],
    ["not an array", server(), /^MCP_SERVERS must be a JSON array of servers$/],
    ["an entry that is not an object", ["crm"], /^MCP_SERVERS\[0\]: must be an object$/],
    [
      "a header name that is not a token",
      [server({ headers: { "x token": "v" } })],
      /\[0\]\.headers: must be an object of header names/,
    ],
    [
      "a header value with CR LF",
      [server({ headers: { a: "ok", "x-t": "v\r\nevil: 1" } })],
      /\[0\]\.headers \(the 2nd header\): its value cannot contain CR, LF or NUL/,
    ],
    ["a header value with NUL", [server({ headers: { "x-t": "v\u0000" } })], /CR, LF or NUL/],
    [
      "a malformed secret reference",
      [server({ headers: { a: "Bearer {{secret:bad-name}}" } })],
      /\{\{secret:…\}\} must name a var/,
    ],
    ["a header value that is not a string", [server({ headers: { a: 1 } })], /\[0\]\.headers: /],
  ])("refuses %s, naming the entry and field", (_what, value, message) => {
    const r = typeof value === "string" ? parseMcpServers(value) : parse(value);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });

  const status = async (env: Record<string, unknown>) => {
    const res = await createApp().request("/v1/tools", { headers: { authorization: "Bearer t" } }, {
      API_TOKENS: "t",
      ...env,
    } as never);
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  };

  it("an invalid value answers 503 not_configured on every /v1 route, naming the problem", async () => {
    const env = { API_TOKENS: "t", MCP_SERVERS: JSON.stringify([server(), server()]) };
    for (const path of ["/v1/sessions", "/v1/tools", "/v1/providers"]) {
      const res = await createApp().request(path, { headers: { authorization: "Bearer t" } }, env as never);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_configured");
      expect(body.error.message).toMatch(/\[1\]\.name: another server has this name/);
    }
  });

  it.each([
    ["a URL with userinfo", [server({ url: "https://admin:hunter2-PW@mcp.example.com/mcp?api_key=KEY-9f8e7d" })]],
    [
      "a URL with a query, in an entry with another problem",
      [server({ url: "https://mcp.example.com/mcp?api_key=KEY-9f8e7d", timeoutMs: 1 })],
    ],
    ["a header value", [server({ headers: { authorization: "Bearer hunter2-PW\nKEY-9f8e7d" } })]],
    ["an unknown field holding a value", [server({ apiKey: "KEY-9f8e7d hunter2-PW" })]],
    ["a field of the wrong type", [server({ url: ["https://admin:hunter2-PW@x/?api_key=KEY-9f8e7d"] })]],
    ["a name holding a value", [server({ name: "KEY-9f8e7d hunter2-PW" })]],
  ])("the 503 for %s never repeats a value", async (_what, value) => {
    const r = await status({ MCP_SERVERS: JSON.stringify(value) });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toMatch(/^MCP_SERVERS\[0\]/);
    for (const leak of ["hunter2", "KEY-9f8e7d", "admin", "api_key"]) expect(r.body.error.message).not.toContain(leak);
  });

  it("the 503 for a value that is not JSON never quotes it", async () => {
    const r = await status({ MCP_SERVERS: '[{"name":"crm","url":"https://admin:hunter2-PW@x/?api_key=KEY-9f8e7d",}]' });
    expect(r.body.error.message).toBe("MCP_SERVERS is not valid JSON");
  });

  it("a secret MCP_SERVERS or HTTP_TOOL_SECRETS names is refused under 8 characters, naming it, never its value", async () => {
    const mcp = JSON.stringify([server({ headers: { authorization: "Bearer {{secret:CRM_TOKEN}}" } })]);
    const short = await status({ MCP_SERVERS: mcp, CRM_TOKEN: "s3cr3t7" });
    expect(short.status).toBe(503);
    expect(short.body.error.message).toBe(
      "secret CRM_TOKEN is shorter than 8 characters: too short to keep out of the log",
    );
    const viaHttp = await status({ HTTP_TOOL_SECRETS: "API_KEY=api.example.com", API_KEY: "ab" });
    expect(viaHttp.body.error.message).toMatch(/^secret API_KEY is shorter than 8/);
    expect((await status({ MCP_SERVERS: mcp, CRM_TOKEN: "s3cr3t78" })).status).toBe(200);
  });

  it("an HTTP_TOOL_SECRETS entry that would be ignored is 503, naming the entry", async () => {
    const r = await status({
      HTTP_TOOL_SECRETS: "API_KEY=api.example.com,bad name=x.test",
      API_KEY: "long-enough-key",
    });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toMatch(/^HTTP_TOOL_SECRETS \(entry 2\): a secret name must match/);
    const ok = await status({ HTTP_TOOL_SECRETS: "API_KEY=api.example.com,*.example.org", API_KEY: "long-enough-key" });
    expect(ok.status).toBe(200);
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
