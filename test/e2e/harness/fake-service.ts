/**
 * A fake external HTTP service for crash tests: it counts every hit per path and method
 * (counted on arrival, before any hold), and can hold requests to a path open until the
 * test releases them, so a test can kill the worker while a tool's request is in flight.
 *
 * Routes: `POST /write` stores the body and answers `{ ok, n, body }`; `GET /read` answers
 * `{ value, n }` with the last written body; any other path answers `{ path, method, n }`.
 * `respond(path, ...)` overrides a route's answer (status, headers, body), e.g. a redirect.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ServiceHit = {
  path: string;
  method: string;
  body: string;
  headers: IncomingMessage["headers"];
  at: number;
};
export type CannedResponse = { status?: number; headers?: Record<string, string>; body?: string | object };

export type FakeService = {
  /** e.g. `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  port: number;
  /** `host:port`, handy for `HTTP_TOOL_ALLOWED_HOSTS`. */
  host: string;
  /** Number of requests that arrived for `path` (query string ignored), optionally of one method. */
  hits(path: string, method?: string): number;
  /** Number of answers fully sent for `path` (a held request counts only once released). */
  completed(path: string, method?: string): number;
  log: ServiceHit[];
  /** Requests to `path` that arrive from now on wait until `release(path)`. */
  hold(path: string): void;
  /** Let held requests to `path` go on, and stop holding it. */
  release(path: string): void;
  /** Resolves once `hits(path, method) >= n`. */
  waitForHit(path: string, opts?: { method?: string; n?: number; timeoutMs?: number }): Promise<void>;
  respond(path: string, response: CannedResponse | undefined): void;
  close(): Promise<void>;
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Start the fake service on 127.0.0.1 with an ephemeral port. */
export async function startFakeService(): Promise<FakeService> {
  const log: ServiceHit[] = [];
  const done: { path: string; method: string }[] = [];
  const held = new Map<string, (() => void)[]>();
  const canned = new Map<string, CannedResponse>();
  const waiters = new Set<() => void>();
  let lastWritten: string | null = null;

  const count = (list: { path: string; method: string }[], path: string, method?: string) =>
    list.filter((h) => h.path === path && (!method || h.method === method.toUpperCase())).length;

  const send = (res: ServerResponse, status: number, body: string | object, headers: Record<string, string> = {}) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const type = typeof body === "string" ? "text/plain; charset=utf-8" : "application/json";
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(text);
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req).catch(() => "");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const method = (req.method ?? "GET").toUpperCase();
    log.push({ path, method, body, headers: req.headers, at: Date.now() });
    for (const w of waiters) w();

    const queue = held.get(path);
    if (queue) await new Promise<void>((resolve) => queue.push(resolve));
    if (res.destroyed) return;

    res.on("finish", () => done.push({ path, method }));
    const n = count(log, path, method);
    const c = canned.get(path);
    if (c) send(res, c.status ?? 200, c.body ?? "", c.headers);
    else if (path === "/write" && method === "POST") {
      lastWritten = body;
      send(res, 200, { ok: true, n, body });
    } else if (path === "/read" && method === "GET") send(res, 200, { value: lastWritten, n });
    else send(res, 200, { path, method, n });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    host: `127.0.0.1:${port}`,
    log,
    hits: (path, method) => count(log, path, method),
    completed: (path, method) => count(done, path, method),
    hold(path) {
      if (!held.has(path)) held.set(path, []);
    },
    release(path) {
      const queue = held.get(path) ?? [];
      held.delete(path);
      for (const go of queue) go();
    },
    respond(path, response) {
      if (response) canned.set(path, response);
      else canned.delete(path);
    },
    waitForHit(path, { method, n = 1, timeoutMs = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (count(log, path, method) >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake-service: ${count(log, path, method)} of ${n} hits on ${path} after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const path of [...held.keys()]) {
          held.delete(path);
        }
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
