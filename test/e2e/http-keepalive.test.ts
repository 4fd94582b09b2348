/**
 * docs/API.md §2 and §7.2 against a real `wrangler dev`: a request refused before its body was
 * read (413 from Content-Length, 401) leaves the client's keep-alive connection usable, and a
 * GET body is discarded, never parsed. Each case sends its next request on the same socket
 * (asserted with `reusedSocket`), where the old edge left the connection hanging. The same
 * Worker runs with an unconfigured default provider, to check the fallback and its start log.
 */

import { rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePersistDir, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "e2e-keepalive-token";
const OVER_LIMIT = 1_048_577;

type Answer = { status: number; body: string; reusedSocket: boolean };

/** One request on `agent` (one socket, kept alive); resolves with the whole answer. */
function send(
  agent: Agent,
  base: string,
  method: string,
  path: string,
  body?: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe("keep-alive connections after early answers (real wrangler dev)", () => {
  let worker: Wrangler;
  let persistTo: string;

  beforeAll(async () => {
    persistTo = makePersistDir();
    // An unconfigured default (anthropic without MODEL_API_KEY) falls back to demo (docs/API.md §7.23).
    worker = await startWrangler({ persistTo, vars: { API_TOKENS: TOKEN, MODEL_PROVIDER: "anthropic" } });
  });

  afterAll(async () => {
    await worker?.stop();
    rmSync(persistTo, { recursive: true, force: true });
  });

  it("a 1,048,577-byte POST gets 413, then the next GET on the same connection is answered", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = new Uint8Array(OVER_LIMIT).fill(0x61);
      const refused = await send(agent, worker.url, "POST", "/v1/sessions", big, {
        "content-type": "application/json",
      });
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body).error.code).toBe("payload_too_large");
      const next = await send(agent, worker.url, "GET", "/v1/sessions");
      expect(next.reusedSocket).toBe(true);
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body)).toEqual({ sessions: [] });
    } finally {
      agent.destroy();
    }
  });

  it("Node's fetch: after a 413 the pooled connection serves the next request", async () => {
    const big = new Uint8Array(OVER_LIMIT).fill(0x61);
    const refused = await fetch(`${worker.url}/v1/sessions`, {
      method: "POST",
      body: big,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    const next = await fetch(`${worker.url}/v1/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({ sessions: [] });
  });

  it("a 401 answered before a large body was read leaves the connection usable", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = new Uint8Array(512 * 1024).fill(0x61);
      const refused = await send(agent, worker.url, "POST", "/v1/sessions", body, { authorization: "Bearer nope" });
      expect(refused.status).toBe(401);
      const next = await send(agent, worker.url, "GET", "/healthz");
      expect(next.reusedSocket).toBe(true);
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("a GET body is discarded, not parsed, and the connection stays usable", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(agent, worker.url, "GET", "/v1/sessions", "{ not json");
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toEqual({ sessions: [] });
      const next = await send(agent, worker.url, "GET", "/v1/sessions");
      expect(next.reusedSocket).toBe(true);
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("a chunked body over 1 MiB gets 413 while reading, then the connection serves the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await new Promise<Answer>((resolve, reject) => {
        const req = request(
          `${worker.url}/v1/sessions`,
          { method: "POST", agent, headers: { authorization: `Bearer ${TOKEN}` } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (d: Buffer) => chunks.push(d));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), reusedSocket: false }),
            );
          },
        );
        req.on("error", reject);
        // No Content-Length: Node sends it chunked, 18 × 64 KiB.
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        for (let i = 0; i < 18; i++) req.write(chunk);
        req.end();
      });
      expect(refused.status).toBe(413);
      const next = await send(agent, worker.url, "GET", "/v1/sessions");
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  // A broken chunked body (bad chunk framing) no longer reaches the Worker under wrangler dev:
  // since wrangler 4.1xx its local proxy fails the request itself ("Error inside ProxyWorker …
  // Network connection lost", a 500 of its own, seen on 4.164.0). What the Worker answers to a
  // body it cannot read (400 bad_request, not 500) is tested on the app in test/unit/http/edge.test.ts.

  it("an unconfigured default provider falls back to demo, and the start log says why", async () => {
    expect(worker.logs()).toMatch(
      /highwater: MODEL_PROVIDER=anthropic needs MODEL_API_KEY; the default provider is demo/,
    );
    const auth = { authorization: `Bearer ${TOKEN}` };
    const providers = await fetch(`${worker.url}/v1/providers`, { headers: auth });
    expect(await providers.json()).toEqual({
      providers: [{ name: "demo", isDefault: true, defaultModel: "demo", demo: true }],
    });
    const refused = await fetch(`${worker.url}/v1/sessions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: { provider: "anthropic" } }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("bad_request");
  });
});
