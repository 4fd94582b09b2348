/**
 * The README walkthrough "Connect your tools" with a real server: `@modelcontextprotocol/server-everything`
 * over Streamable HTTP, highwater under `wrangler dev` with the demo model, and a turn that asks
 * the demo to "use" one of the server's tools.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApi } from "./harness/api";
import { freePort, makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "mcp-everything-token";
const EVERYTHING = join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

async function startEverything(): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.includes("listening on port")) resolve();
      if (out.includes("already in use")) reject(new Error(out));
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${out}`)));
  });
  return { proc, url: `http://127.0.0.1:${port}/mcp` };
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

describe("server-everything through a turn", () => {
  it("lists its tools in GET /v1/tools and the demo model calls echo when asked to use it", async () => {
    const everything = await startEverything();
    cleanups.push(() => everything.proc.kill("SIGKILL"));
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
