/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios) against
 * `/mcp` (docs/API.md#a-session-as-an-mcp-server) on a real `wrangler dev`, through a small local
 * proxy that adds the bearer token (the suite sends none). The proxy's origin is the deployment's
 * allowed origin, as a local MCP host's would be; any other Origin or Host is refused.
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "conformance-token";
const SUITE = `${REPO_ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;

describe("MCP conformance suite (server scenarios)", () => {
  let worker: Wrangler;
  let persistTo: string;
  let proxy: http.Server;
  let proxyUrl: string;

  beforeAll(async () => {
    let target = "";
    proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = { ...req.headers } as Record<string, string>;
      for (const h of ["host", "content-length", "connection"]) delete headers[h];
      headers.authorization = `Bearer ${TOKEN}`;
      const r = await fetch(target + req.url, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(r.status, Object.fromEntries(r.headers));
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const port = (proxy.address() as AddressInfo).port;
    proxyUrl = `http://127.0.0.1:${port}`;
    persistTo = makePersistDir();
    worker = await startWrangler({
      persistTo,
      vars: { API_TOKENS: TOKEN, ALLOWED_ORIGINS: `http://127.0.0.1:${port},http://localhost:${port}` },
    });
    target = worker.url;
  });
  afterAll(async () => {
    await worker?.stop();
    await new Promise((ok) => proxy?.close(ok));
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"])
    it(scenario, async () => {
      const run = await promisify(execFile)(
        process.execPath,
        [SUITE, "server", "--url", `${proxyUrl}/mcp`, "--scenario", scenario],
        { timeout: 60_000 },
      ).catch((e: { stdout?: string; stderr?: string; code?: number }) => e);
      expect(run.stdout, run.stderr).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    });
});
