/** A stateful MCP server (server-everything keeps sessions in memory) that restarts between calls. */
import { afterAll, describe, expect, it } from "vitest";
import { McpHub, parseMcpServers } from "../../../../src/tools/mcp";
import { type Everything, startEverything } from "../../../fakes/start-everything";

let server: Everything | null = null;
afterAll(() => server?.stop());

describe("a stateful server that forgot our session", () => {
  it("is connected to again and the call goes through once, even for a write tool", async () => {
    server = await startEverything();
    const cfg = parseMcpServers(
      JSON.stringify([{ name: "everything", url: server.url, effects: { echo: "write" } }]),
      "127.0.0.1:*",
    );
    if (!cfg.ok) throw new Error(cfg.message);
    const hub = new McpHub(cfg.servers, {
      fetch,
      allowedHosts: ["127.0.0.1:*"],
      secret: () => undefined,
      now: () => 0,
    });
    const echo = (await hub.list()).tools.find((t) => t.name === "everything__echo")!;
    expect(echo.effect).toBe("write");
    const signal = () => new AbortController().signal;
    expect(await hub.call(echo, { message: "one" }, "k1", signal())).toEqual({ status: "ok", response: "Echo: one" });
    const port = server.port;
    await server.stop();
    server = await startEverything(port);
    // The old session id answers 404 there: nothing was processed, so sending again is safe.
    expect(await hub.call(echo, { message: "two" }, "k2", signal())).toEqual({ status: "ok", response: "Echo: two" });
    // Two starts of the reference server's process: seconds on a loaded 2-core machine.
  }, 60_000);
});
