/**
 * A recording HTTP server for the custom-tool tests: it keeps every request (path, method,
 * headers, body) and answers with what it received, headers included, so a secret sent in a
 * header comes back in the tool's result (where it must be redacted). `redirect(path, to)`
 * makes `path` answer 302 to `to`.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type Recorded = { path: string; method: string; headers: IncomingHttpHeaders; body: string };

export type Recorder = {
  url: string;
  port: number;
  log: Recorded[];
  hits(path: string): Recorded[];
  redirect(path: string, to: string): void;
  /** Resolves with the requests to `path` once there are at least `n`. */
  waitFor(path: string, n?: number, timeoutMs?: number): Promise<Recorded[]>;
  close(): Promise<void>;
};

export async function startRecorder(): Promise<Recorder> {
  const log: Recorded[] = [];
  const redirects = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const hit = { path, method: req.method ?? "GET", headers: req.headers, body: Buffer.concat(chunks).toString() };
      log.push(hit);
      const to = redirects.get(path);
      if (to) {
        res.writeHead(302, { location: to });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...hit, n: log.filter((h) => h.path === path).length }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const hits = (path: string) => log.filter((h) => h.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    hits,
    redirect: (path, to) => void redirects.set(path, to),
    async waitFor(path, n = 1, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (hits(path).length < n) {
        if (Date.now() > deadline) throw new Error(`recorder: ${hits(path).length} of ${n} requests to ${path}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return hits(path);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
