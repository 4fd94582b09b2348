/** Starts `@modelcontextprotocol/server-everything` over Streamable HTTP (it listens on `PORT`, path `/mcp`). */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url).href);
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

export type Everything = { proc: ChildProcess; port: number; url: string; stop: () => Promise<void> };

/** A port that was free a moment ago (the server takes it from `PORT`; it cannot report one it chose). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startEverything(port?: number): Promise<Everything> {
  const bound = port ?? (await freePort());
  const proc = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(bound) },
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
  return {
    proc,
    port: bound,
    url: `http://127.0.0.1:${bound}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGKILL");
      }),
  };
}
