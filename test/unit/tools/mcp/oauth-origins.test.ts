/**
 * The fetch of OAuth discovery reaches only the origins it was given (docs/API.md#mcp-servers-behind-oauth),
 * follows no redirect, and a hub with an OAuth server and no token for it lists that server as
 * `needs_authorization` without sending it anything, and asks again at the next listing.
 */
import { describe, expect, it } from "vitest";
import { McpHub, parseMcpServers } from "../../../../src/tools/mcp";
import { oauthFetch } from "../../../../src/tools/mcp/bounded-fetch";
import { NeedsAuthorization } from "../../../../src/tools/mcp/oauth";

describe("oauthFetch", () => {
  it("refuses an origin discovery did not name, and passes redirects on unfollowed", async () => {
    const seen: { url: string; redirect: RequestInit["redirect"] }[] = [];
    const inner = (async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), redirect: init?.redirect });
      return new Response("{}", { status: 302, headers: { location: "https://evil.example/" } });
    }) as typeof fetch;
    const allowed = new Set(["https://mcp.example.com"]);
    const f = oauthFetch({ fetch: inner }, allowed);
    await expect(f("https://as.example.com/.well-known/oauth-authorization-server")).rejects.toThrow(
      /origin discovery did not name/,
    );
    expect(seen).toEqual([]);
    allowed.add("https://as.example.com");
    const res = await f("https://as.example.com/.well-known/oauth-authorization-server");
    expect(res.status).toBe(302);
    expect(seen).toEqual([
      { url: "https://as.example.com/.well-known/oauth-authorization-server", redirect: "manual" },
    ]);
  });
});

describe("a hub with an OAuth server", () => {
  const cfg = parseMcpServers(
    JSON.stringify([{ name: "docs", url: "https://mcp.example.com/mcp", auth: { type: "oauth" } }]),
  );
  if (!cfg.ok) throw new Error(cfg.message);

  it("without a token: needs_authorization, nothing sent, asked again next time", async () => {
    let sent = 0;
    let asked = 0;
    const hub = new McpHub(cfg.servers, {
      fetch: (async () => {
        sent++;
        return new Response("", { status: 500 });
      }) as typeof fetch,
      secret: () => undefined,
      now: () => 0,
      tokens: {
        token: async (s) => {
          asked++;
          throw new NeedsAuthorization(s.name);
        },
        refused: async () => {},
      },
    });
    expect(await hub.list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "docs", reason: "needs_authorization" }],
    });
    expect(await hub.list()).toEqual({
      tools: [],
      servers: [],
      unavailable: [{ server: "docs", reason: "needs_authorization" }],
    });
    expect(sent).toBe(0);
    expect(asked).toBe(2);
  });

  it("a 401 from the server forgets the grant and is needs_authorization", async () => {
    let refused = 0;
    const headers: string[] = [];
    const hub = new McpHub(cfg.servers, {
      fetch: (async (_i: RequestInfo | URL, init?: RequestInit) => {
        headers.push(new Headers(init?.headers).get("authorization") ?? "");
        return new Response("", { status: 401 });
      }) as typeof fetch,
      secret: () => undefined,
      now: () => 0,
      tokens: { token: async () => "at-123", refused: async () => void refused++ },
    });
    expect((await hub.list()).unavailable).toEqual([{ server: "docs", reason: "needs_authorization" }]);
    expect(headers[0]).toBe("Bearer at-123");
    expect(refused).toBe(1);
  });
});

describe("finishing an authorization", () => {
  it("an expired state (past 10 minutes) is refused, used up, and nothing is fetched or stored", async () => {
    const { finishAuthorization, AUTHORIZE_TTL_MS } = await import("../../../../src/tools/mcp/oauth");
    const cfg = parseMcpServers(
      JSON.stringify([{ name: "docs", url: "https://mcp.example.com/mcp", auth: { type: "oauth" } }]),
    );
    if (!cfg.ok) throw new Error(cfg.message);
    const pending = new Map<string, unknown>();
    const grants: unknown[] = [];
    let fetched = 0;
    const clock = { now: 1_000_000 };
    const store = {
      get: async () => null,
      put: async (...a: unknown[]) => void grants.push(a),
      delete: async () => {},
      putPending: async (s: string, p: unknown) => void pending.set(s, p),
      takePending: async (s: string) => {
        const p = pending.get(s) ?? null;
        pending.delete(s);
        return p as never;
      },
    };
    await store.putPending("st", {
      server: "docs",
      principal: "p",
      verifier: "v",
      redirectUri: "https://hw.example/v1/oauth/callback",
      client: { client_id: "c" },
      issuer: "https://as.example.com",
      metadata: null,
      resource: "https://mcp.example.com/mcp",
      expiresAt: clock.now + AUTHORIZE_TTL_MS,
    });
    clock.now += AUTHORIZE_TTL_MS;
    const deps = {
      fetch: (async () => {
        fetched++;
        return new Response("{}");
      }) as typeof fetch,
      secret: () => undefined,
      store,
      now: () => clock.now,
    };
    const r = await finishAuthorization(cfg.servers, "st", "code", deps);
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/expired/) });
    expect(pending.size).toBe(0);
    expect(fetched).toBe(0);
    expect(grants).toEqual([]);
  });
});
