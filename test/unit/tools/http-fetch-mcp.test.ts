/** http_fetch and MCP servers (docs/API.md#mcp-servers): a server is reached through its tools, not around them. */
import { describe, expect, it } from "vitest";
import { httpFetchTool, parseToolArgs, type ToolContext } from "../../../src/tools";

const MCP_SERVERS = JSON.stringify([{ name: "crm", url: "http://127.0.0.1:7777/mcp" }]);

function run(url: string, env: Record<string, unknown>, answer = (u: string) => new Response(`hi ${u}`)) {
  const sent: string[] = [];
  const ctx: ToolContext = {
    sessionId: "s1",
    callId: "c1",
    idempotencyKey: "hw_k",
    signal: new AbortController().signal,
    sql: null as never,
    blobs: null as never,
    httpAllowedHosts: ["127.0.0.1:*"],
    fetch: (async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return answer(String(input));
    }) as typeof fetch,
    env,
  };
  const parsed = parseToolArgs(httpFetchTool, { url, method: "POST", body: "{}" });
  if (!parsed.ok) throw new Error("bad args");
  return httpFetchTool.run(parsed.args, ctx).then((r) => ({ ...r, sent }));
}

describe("http_fetch and MCP servers", () => {
  it("an MCP server's host is not a target, even when HTTP_TOOL_ALLOWED_HOSTS allows it; nothing is sent", async () => {
    for (const url of ["http://127.0.0.1:7777/mcp", "http://127.0.0.1:7777/other", "http://127.0.0.1:7777/MCP/"]) {
      const r = await run(url, { MCP_SERVERS });
      expect(r.status, url).toBe("error");
      expect(r.response).toMatchObject({ code: "host_not_allowed", message: expect.stringMatching(/MCP server/) });
      expect(r.sent).toEqual([]);
    }
  });

  it("a redirect to an MCP server's host is refused before it is followed", async () => {
    const r = await run("http://127.0.0.1:8888/go", { MCP_SERVERS }, (u) =>
      u.includes("8888")
        ? new Response(null, { status: 307, headers: { location: "http://127.0.0.1:7777/mcp" } })
        : new Response("reached"),
    );
    expect(r.response).toMatchObject({ code: "host_not_allowed" });
    expect(r.sent).toEqual(["http://127.0.0.1:8888/go"]);
  });

  it("other hosts stay reachable, and HTTP_TOOL_MCP_HOSTS=allow lets it reach the server", async () => {
    expect((await run("http://127.0.0.1:7778/x", { MCP_SERVERS })).status).toBe("ok");
    const allowed = await run("http://127.0.0.1:7777/mcp", { MCP_SERVERS, HTTP_TOOL_MCP_HOSTS: "allow" });
    expect(allowed.status).toBe("ok");
    expect(allowed.sent).toEqual(["http://127.0.0.1:7777/mcp"]);
  });
});
