/**
 * The README walkthrough "Connect your tools" with a real server: `@modelcontextprotocol/server-everything`
 * over Streamable HTTP, highwater under `wrangler dev` with the demo model, and a turn that asks
 * the demo to "use" one of the server's tools.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startEverything } from "../fakes/start-everything";
import { createApi } from "./harness/api";
import { makePersistDir, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "mcp-everything-token";
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

describe("server-everything through a turn", () => {
  it("lists its tools in GET /v1/tools and the demo model calls echo when asked to use it", async () => {
    const everything = await startEverything();
    cleanups.push(() => everything.stop());
    const persistTo = makePersistDir("hw-mcp-everything-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const worker: Wrangler = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
        MCP_SERVERS: JSON.stringify([{ name: "everything", url: everything.url, trust: "annotations" }]),
      },
    });
    cleanups.push(() => worker.stop());
    const api = createApi(worker.url, TOKEN);

    const listed = (await (await api.raw("GET", "/v1/tools")).json()) as {
      tools: { name: string; source: string; effect: string }[];
      unavailable: string[];
    };
    expect(listed.unavailable).toEqual([]);
    expect(listed.tools.find((t) => t.name === "everything__echo")).toMatchObject({
      source: "mcp:everything",
      effect: "read",
    });

    const session = await api.createSession({ title: "use echo" });
    await api.sendMessage(session.id, "use everything__echo");
    const done = await api.waitForIdle(session.id, { timeoutMs: 60_000 });
    const response = done.events.find((e) => e.content?.type === "functionResponse")?.content as {
      name: string;
      status: string;
      response: unknown;
    };
    expect(response).toMatchObject({ name: "everything__echo", status: "ok" });
    expect(response.response).toMatch(/^Echo: /);
    const answer = done.events.findLast((e) => e.author === "model" && e.content?.type === "text")?.content as {
      text: string;
    };
    expect(answer.text).toContain("Echo: ");
  });
});
