/**
 * MCP answers over SSE (docs/API.md#mcp-servers) against a real MCP server process
 * (bench/lib/fake-mcp-server.mjs) that counts calls: an answer over the byte limit, cut off
 * mid-event, or ended without a result fails the call at once as `tool_failed`, never after the
 * timeout, and a `write` tool is called exactly once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { McpHub, type McpToolSpec, parseMcpServers } from "../../../../src/tools/mcp";
import { type FakeMcpServer, startFakeMcpServer } from "../../../fakes/start-mcp-server";

let fake: FakeMcpServer;
beforeAll(async () => {
  fake = await startFakeMcpServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A long timeout: a failure that waits for it fails the test's own 10 s. */
const TIMEOUT_MS = 30_000;
function hubOf(f: typeof fetch = fetch) {
  const cfg = parseMcpServers(
    JSON.stringify([{ name: "fake", url: fake.url, trust: "annotations", timeoutMs: TIMEOUT_MS }]),
  );
  if (!cfg.ok) throw new Error(cfg.message);
  return new McpHub(cfg.servers, { fetch: f, secret: () => undefined, now: () => 0 });
}
const signal = () => new AbortController().signal;
const spec = (hub: McpHub, name: string) => hub.list().then((l) => l.tools.find((t) => t.name === name) as McpToolSpec);

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await p;
  return { value, ms: Date.now() - t0 };
}

describe("MCP answers over SSE", () => {
  it("a normal answer over SSE is the result, once", async () => {
    await fake.mode("sse");
    const hub = hubOf();
    const r = await hub.call(await spec(hub, "fake__send"), { to: "ops", text: "hi" }, "hw_ok", signal());
    expect(r).toEqual({ status: "ok", response: "sent #1 to ops" });
    expect((await fake.calls()).calls).toHaveLength(1);
  });

  it.each(["fake__lookup", "fake__send"])(
    "an answer over 10 MiB to %s is tool_failed at once, after one call",
    async (name) => {
      const hub = hubOf();
      const tool = await spec(hub, name);
      await fake.mode("sse-huge");
      const { value, ms } = await timed(hub.call(tool, { id: "1", to: "ops", text: "hi" }, "hw_big", signal()));
      expect(value).toMatchObject({ status: "error", response: { code: "tool_failed" } });
      expect(JSON.stringify(value.response)).toMatch(/exceeds 10485760 bytes/);
      expect(ms).toBeLessThan(TIMEOUT_MS / 3);
      expect((await fake.calls()).calls.map((c) => c.key)).toEqual(["hw_big"]);
    },
    10_000,
  );

  it("an answer cut off mid-event to a write tool is tool_failed at once, after exactly one call", async () => {
    const hub = hubOf();
    const send = await spec(hub, "fake__send");
    await fake.mode("sse-cut");
    const { value, ms } = await timed(hub.call(send, { to: "ops", text: "hi" }, "hw_cut", signal()));
    expect(value).toMatchObject({ status: "error", response: { code: "tool_failed" } });
    expect(JSON.stringify(value.response)).toMatch(/cut off.*may have taken effect/);
    expect(ms).toBeLessThan(TIMEOUT_MS / 3);
    const seen = await fake.calls();
    expect(seen.calls.map((c) => [c.tool, c.key])).toEqual([["send", "hw_cut"]]);
    expect(seen.effects.send).toBe(1);
  }, 10_000);

  it("an answer cut off to a read tool is retried with the same key, each failing at once", async () => {
    const hub = hubOf();
    const lookup = await spec(hub, "fake__lookup");
    await fake.mode("sse-cut");
    const { value, ms } = await timed(hub.call(lookup, { id: "1" }, "hw_read", signal()));
    expect(value).toMatchObject({ status: "error", response: { code: "tool_failed" } });
    expect(ms).toBeLessThan(TIMEOUT_MS / 3);
    expect((await fake.calls()).calls.map((c) => c.key)).toEqual(["hw_read", "hw_read", "hw_read"]);
  }, 10_000);

  it("an SSE answer that ends without a result is tool_failed at once", async () => {
    // The server's stream closes cleanly after half an event (no event id: not resumable).
    const ended: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!(typeof init?.body === "string" && init.body.includes('"tools/call"'))) return res;
      const text = await res.text();
      return new Response(text.slice(0, text.indexOf("data:") + 20), { status: 200, headers: res.headers });
    };
    await fake.mode("sse");
    const hub = hubOf(ended);
    const send = await spec(hub, "fake__send");
    const { value, ms } = await timed(hub.call(send, { to: "ops", text: "hi" }, "hw_end", signal()));
    expect(value).toMatchObject({ status: "error", response: { code: "tool_failed" } });
    expect(JSON.stringify(value.response)).toMatch(/ended without a result/);
    expect(ms).toBeLessThan(TIMEOUT_MS / 3);
    expect((await fake.calls()).calls).toHaveLength(1);
  }, 10_000);
});
