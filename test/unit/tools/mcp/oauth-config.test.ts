/**
 * `MCP_SERVERS[].auth` (docs/API.md#mcp-servers-behind-oauth): the shape is checked at start-up,
 * an OAuth server without `TOKEN_ENCRYPTION_KEY` (or the TOKENS binding) is 503 `not_configured`
 * naming what is missing and never a value, and `POST /v1/mcp/:server/authorize` refuses servers
 * that have nothing to authorize before anything is fetched or stored.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../../../../src/http";
import { parseMcpServers } from "../../../../src/tools/mcp";

const server = (auth: unknown) => ({ name: "docs", url: "https://mcp.example.com/mcp", auth });
const env = (servers: unknown[], more: Record<string, unknown> = {}) => ({
  API_TOKENS: "t",
  MCP_SERVERS: JSON.stringify(servers),
  ...more,
});
const request = (e: object, path: string, init: RequestInit = {}) =>
  createApp().request(path, { ...init, headers: { authorization: "Bearer t" } }, e as never);

describe("MCP_SERVERS[].auth", () => {
  it("accepts the documented shape and fills the defaults", () => {
    const r = parseMcpServers(JSON.stringify([server({ type: "oauth" })]));
    expect(r.ok && r.servers[0]!.auth).toEqual({
      type: "oauth",
      scopes: [],
      clientId: null,
      clientSecret: null,
      grant: "authorization_code",
    });
    const cc = parseMcpServers(
      JSON.stringify([
        server({ type: "oauth", grant: "client_credentials", clientId: "c", clientSecret: "{{secret:CC}}" }),
      ]),
    );
    expect(cc.ok && cc.servers[0]!.auth).toMatchObject({ clientSecret: "CC", grant: "client_credentials" });
  });

  it.each([
    ["another type", { type: "basic" }],
    ["a literal client secret", { type: "oauth", clientId: "c", clientSecret: "s3cr3t-value" }],
    ["client credentials without a secret", { type: "oauth", grant: "client_credentials", clientId: "c" }],
    ["an unknown grant", { type: "oauth", grant: "password" }],
  ])("refuses %s, naming the field and not the value", (_what, auth) => {
    const r = parseMcpServers(JSON.stringify([server(auth)]));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^MCP_SERVERS\[0\]\.auth: /);
    expect(!r.ok && r.message).not.toContain("s3cr3t-value");
  });

  it("an Authorization header beside auth is refused", () => {
    const r = parseMcpServers(
      JSON.stringify([{ ...server({ type: "oauth" }), headers: { Authorization: "Bearer x-static-token" } }]),
    );
    expect(!r.ok && r.message).toMatch(/Authorization header and auth/);
  });
});

describe("the edge with an OAuth server", () => {
  it("without TOKEN_ENCRYPTION_KEY every /v1 request and the callback are 503 not_configured naming it", async () => {
    for (const [e, path] of [
      [env([server({ type: "oauth" })], { TOKENS: {} }), "/v1/tools"],
      [env([server({ type: "oauth" })], { TOKENS: {}, TOKEN_ENCRYPTION_KEY: "short-key-value" }), "/v1/tools"],
      [env([server({ type: "oauth" })], { TOKENS: {} }), "/v1/oauth/callback?code=c&state=s"],
    ] as const) {
      const res = await request(e, path);
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text).error).toMatchObject({ code: "not_configured" });
      expect(text).toContain("TOKEN_ENCRYPTION_KEY");
      expect(text).not.toContain("short-key-value");
    }
  });

  it("without the TOKENS binding: 503 naming it", async () => {
    const res = await request(env([server({ type: "oauth" })], { TOKEN_ENCRYPTION_KEY: "k".repeat(32) }), "/v1/tools");
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("TOKENS");
  });

  it("authorize: an unknown server is 404, one without OAuth or with client credentials 400", async () => {
    const e = env(
      [
        { name: "plain", url: "https://mcp.example.com/mcp" },
        {
          name: "m2m",
          url: "https://m2m.example.com/mcp",
          auth: { type: "oauth", grant: "client_credentials", clientId: "c", clientSecret: "{{secret:CC}}" },
        },
      ],
      { TOKENS: {}, TOKEN_ENCRYPTION_KEY: "k".repeat(32), CC: "client-secret-value" },
    );
    expect((await request(e, "/v1/mcp/nope/authorize", { method: "POST" })).status).toBe(404);
    expect((await request(e, "/v1/mcp/plain/authorize", { method: "POST" })).status).toBe(400);
    expect((await request(e, "/v1/mcp/m2m/authorize", { method: "POST" })).status).toBe(400);
    expect((await request(e, "/v1/mcp/plain/authorize", { method: "GET" })).status).toBe(405);
  });

  it("the callback without a state is a 400 page, without the edge's auth", async () => {
    const e = env([server({ type: "oauth" })], { TOKENS: {}, TOKEN_ENCRYPTION_KEY: "k".repeat(32) });
    const res = await createApp().request("/v1/oauth/callback?code=c", {}, e as never);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
  });
});
