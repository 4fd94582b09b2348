/**
 * `http_fetch` and A2A agents (docs/API.md#a2a-agents): configuring an agent allows its origin to the
 * A2A client only; `http_fetch` refuses it (the feature's `deniedHosts`, handed to the tool by the
 * runtime), directly or through a redirect, and sends nothing there.
 */
import { describe, expect, it } from "vitest";
import { a2aClient } from "../../../src/features/a2a-client";
import { httpFetchTool, parseToolArgs, type ToolContext } from "../../../src/tools";

const env = {
  A2A_AGENTS: JSON.stringify([{ name: "helper", url: "http://127.0.0.1:7777/.well-known/agent-card.json" }]),
};

function run(url: string, answer = (u: string) => new Response(`hi ${u}`)) {
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
    httpDeniedHosts: a2aClient.deniedHosts!(env),
  };
  const parsed = parseToolArgs(httpFetchTool, { url, method: "GET" });
  if (!parsed.ok) throw new Error("bad args");
  return httpFetchTool.run(parsed.args, ctx).then((r) => ({ ...r, sent }));
}

describe("http_fetch and A2A agents", () => {
  it("an agent's host is refused, even when HTTP_TOOL_ALLOWED_HOSTS allows it", async () => {
    const r = await run("http://127.0.0.1:7777/a2a");
    expect(r).toMatchObject({ status: "error", response: { code: "host_not_allowed" } });
    expect(r.sent).toEqual([]);
  });

  it("a redirect to it is refused before it is followed; other hosts stay reachable", async () => {
    const r = await run("http://127.0.0.1:8888/go", (u) =>
      u.includes("8888")
        ? new Response(null, { status: 302, headers: { location: "http://127.0.0.1:7777/x" } })
        : new Response("reached"),
    );
    expect(r.response).toMatchObject({ code: "host_not_allowed" });
    expect(r.sent).toEqual(["http://127.0.0.1:8888/go"]);
    expect((await run("http://127.0.0.1:7778/x")).status).toBe("ok");
  });
});
