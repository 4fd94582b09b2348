/**
 * A token revoked mid-turn (docs/API.md#mcp-servers-behind-oauth): the server answers 401 to a
 * call, the call is `tool_unavailable`, the grant is forgotten, and the next listing names the
 * server `unavailable` with `needs_authorization` (not from the 5-minute cache).
 */
import { describe, expect, it } from "vitest";
import { McpHub, parseMcpServers } from "../../../src/tools/mcp";
import { NeedsAuthorization } from "../../../src/tools/mcp/oauth";
import { mcp2Server } from "../../fakes/mcp2-server";

describe("a token revoked mid-turn", () => {
  it("is tool_unavailable for the call, and the server is needs_authorization at the next listing", async () => {
    const server = mcp2Server();
    let valid = true;
    let granted = true;
    let refused = 0;
    const guarded = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!valid || request.headers.get("authorization") !== "Bearer good")
        return new Response("", { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
      return server.fetch(request);
    }) as typeof fetch;
    const cfg = parseMcpServers(
      JSON.stringify([
        { name: "docs", url: "https://mcp.example.com/mcp", auth: { type: "oauth" }, trust: "annotations" },
      ]),
    );
    if (!cfg.ok) throw new Error(cfg.message);
    const hub = new McpHub(cfg.servers, {
      fetch: guarded,
      secret: () => undefined,
      now: () => 0,
      tokens: {
        token: async (s) => {
          if (!granted) throw new NeedsAuthorization(s.name);
          return "good";
        },
        refused: async () => {
          refused++;
          granted = false;
        },
      },
    });
    const listed = await hub.list();
    expect(listed.unavailable).toEqual([]);
    const lookup = listed.tools.find((t) => t.tool === "lookup")!;
    expect(await hub.call(lookup, { id: "1" }, "hw_k1", AbortSignal.timeout(10_000))).toEqual({
      status: "ok",
      response: "order 1: shipped",
    });

    valid = false; // revoked at the authorization server
    const cut = await hub.call(lookup, { id: "2" }, "hw_k2", AbortSignal.timeout(10_000));
    expect(cut).toMatchObject({ status: "error", response: { code: "tool_unavailable" } });
    expect(refused).toBe(1);
    // Same clock: without the refusal the 5-minute cache would still list the tools.
    expect(await hub.list()).toMatchObject({
      tools: [],
      unavailable: [{ server: "docs", reason: "needs_authorization" }],
    });
    expect(server.calls.map((c) => c.args)).toEqual([{ id: "1" }]);
  });
});
