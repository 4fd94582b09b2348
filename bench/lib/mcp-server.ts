/** Starts `bench/lib/fake-mcp-server.mjs` (the fake MCP server of the tests and the bench) as its own process and talks to its control routes. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export type McpCall = { tool: string; key: string | null; args: Record<string, unknown> };
export type FakeMode = "normal" | "garbage" | "huge" | "many" | "down" | "extra" | "badschema";

export type FakeMcpServer = {
  port: number;
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  calls(): Promise<{ calls: McpCall[]; effects: { upsert: number; send: number } }>;
  mode(mode: FakeMode): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
  proc: ChildProcess;
};

// Beside this file; from a bundle elsewhere (bench/run.mjs), from the repository root.
const BESIDE = fileURLToPath(new URL("./fake-mcp-server.mjs", import.meta.url).href);
const SCRIPT = existsSync(BESIDE) ? BESIDE : join(process.cwd(), "bench", "lib", "fake-mcp-server.mjs");

/** The fake on 127.0.0.1 with a free port (or `port`), ready when this resolves. */
export async function startFakeMcpServer(port = 0): Promise<FakeMcpServer> {
  const proc = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const bound = await new Promise<number>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /MCP_FAKE_PORT=(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`fake MCP server exited (${code})`)));
  });
  const base = `http://127.0.0.1:${bound}`;
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json());
  return {
    port: bound,
    url: `${base}/mcp`,
    proc,
    calls: () => fetch(`${base}/calls`).then((r) => r.json()) as never,
    mode: async (mode) => void (await post("/mode", { mode })),
    reset: async () => void (await post("/reset", {})),
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGKILL");
      }),
  };
}
