/**
 * docs/design.md#memory-an-object-holds: a session lets go of its MCP connections when its alarm's
 * work is done. The reference server (server-everything) keeps the stream a client may open with
 * a GET after `initialize`; held open, it would keep the session's object in memory for as long
 * as the server kept it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpHub, parseMcpServers } from "../../../../src/tools/mcp";
import { type Everything, startEverything } from "../../../fakes/start-everything";

let server: Everything | null = null;
afterAll(() => server?.stop());

/** A fetch that keeps each request's method and signal. */
function recording() {
  const sent: { method: string; signal: AbortSignal | null | undefined }[] = [];
  const f: typeof fetch = (input, init) => {
    sent.push({ method: (init?.method ?? "GET").toUpperCase(), signal: init?.signal });
    return fetch(input, init);
  };
  return { fetch: f, sent };
}

const settle = () => new Promise((r) => setTimeout(r, 300));

describe("McpHub.release", () => {
  it("closes the server's stream once no request is under way; the next call connects again", async () => {
    server = await startEverything();
    const net = recording();
    const cfg = parseMcpServers(JSON.stringify([{ name: "everything", url: server.url }]));
    if (!cfg.ok) throw new Error(cfg.message);
    const hub = new McpHub(cfg.servers, { fetch: net.fetch, secret: () => undefined, now: () => 0 });
    const echo = (await hub.list()).tools.find((t) => t.name === "everything__echo")!;
    const signal = new AbortController().signal;
    expect(await hub.call(echo, { message: "one" }, "k1", signal)).toEqual({ status: "ok", response: "Echo: one" });
    await settle();
    // The SDK opened the server's stream after `initialize`, and it is still open.
    const streams = net.sent.filter((r) => r.method === "GET");
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.every((r) => r.signal && !r.signal.aborted)).toBe(true);
    hub.release();
    await settle();
    expect(streams.every((r) => r.signal?.aborted)).toBe(true);
    const before = net.sent.length;
    expect(await hub.call(echo, { message: "two" }, "k2", signal)).toEqual({ status: "ok", response: "Echo: two" });
    expect(net.sent.slice(before).some((r) => r.method === "POST")).toBe(true);
  }, 60_000);

  it("waits for a request under way: the connection closes when it ends, not in the middle of it", async () => {
    server ??= await startEverything();
    const net = recording();
    const cfg = parseMcpServers(JSON.stringify([{ name: "everything", url: server.url }]));
    if (!cfg.ok) throw new Error(cfg.message);
    const hub = new McpHub(cfg.servers, { fetch: net.fetch, secret: () => undefined, now: () => 0 });
    const tools = (await hub.list()).tools;
    const slow = tools.find((t) => t.name === "everything__trigger-long-running-operation")!;
    const call = hub.call(slow, { duration: 1, steps: 2 }, "k3", new AbortController().signal);
    await new Promise((r) => setTimeout(r, 100));
    hub.release();
    expect((await call).status).toBe("ok");
    await settle();
    expect(net.sent.filter((r) => r.method === "GET").every((r) => r.signal?.aborted)).toBe(true);
  }, 60_000);
});
