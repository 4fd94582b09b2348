import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { EventStore } from "../../src/log";
import { applyMigrations } from "../../src/storage";

export const TOKEN = "test-token-a";
export const OTHER_TOKEN = "test-token-b";
export const BASE = "http://hw.test";

/** The Worker under test, called in-process (`exports` is not typed with our handler). */
export const worker = (exports as unknown as { default: { fetch(request: Request): Promise<Response> } }).default;

/** Calls the Worker in-process, with the bearer token unless told otherwise. */
export async function api(
  path: string,
  init: RequestInit & { token?: string | null; json?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? TOKEN : init.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) body = JSON.stringify(init.json);
  const res = await worker.fetch(new Request(`${BASE}${path}`, { ...init, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function createSession(options: unknown = {}) {
  const r = await api("/v1/sessions", { method: "POST", json: options });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string; highWater: number };
}

/** Polls the session until `pred` holds (the alarm drives the loop in the background). */
export async function waitForSession(id: string, pred: (s: any) => boolean, timeoutMs = 20_000) {
  const start = Date.now();
  for (;;) {
    const r = await api(`/v1/sessions/${id}`);
    if (pred(r.body)) return r.body;
    if (Date.now() - start > timeoutMs) throw new Error(`timeout; last: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function allEvents(id: string) {
  const r = await api(`/v1/sessions/${id}/events?limit=1000`);
  return r.body.events as any[];
}

/** Asserts the contract's error shape with an exact status and code. */
export function expectError(r: { status: number; body: any }, status: number, code: string) {
  const detail = JSON.stringify(r.body);
  if (r.status !== status || r.body?.error?.code !== code || typeof r.body?.error?.message !== "string")
    throw new Error(`expected ${status} ${code}, got ${r.status} ${detail}`);
}

/** The session's current highWater, read over HTTP. */
export async function highWaterOf(id: string, token: string = TOKEN): Promise<number> {
  const r = await api(`/v1/sessions/${id}`, { token });
  if (r.status !== 200) throw new Error(`read failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.highWater as number;
}

/** Every session id the principal owns (all pages). */
export async function listSessionIds(token: string = TOKEN): Promise<string[]> {
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const q = before ? `?limit=100&before=${encodeURIComponent(before)}` : "?limit=100";
    const r = await api(`/v1/sessions${q}`, { token });
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(...r.body.sessions.map((s: { id: string }) => s.id));
    if (!r.body.next) return ids;
    before = r.body.next;
  }
}

/** Polls until `pred` holds for the session's full event list. */
export async function waitForEvents(id: string, pred: (events: any[]) => boolean, timeoutMs = 20_000) {
  const start = Date.now();
  for (;;) {
    const events = await allEvents(id);
    if (pred(events)) return events;
    if (Date.now() - start > timeoutMs) throw new Error(`timeout; last seq ${events.at(-1)?.seq}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** An accepted WebSocket with every frame it received, parsed. */
export type SocketProbe = {
  ws: WebSocket;
  frames: any[];
  /** Resolves with the first frame at index ≥ `from` that satisfies `pred`. */
  waitFor: (pred: (f: any) => boolean, opts?: { from?: number; timeoutMs?: number }) => Promise<any>;
  send: (frame: unknown) => void;
  close: () => void;
};

/**
 * Opens `GET /v1/sessions/:id/ws` in-process. Answers the Response when the upgrade is
 * refused, else a probe collecting frames (the socket is accepted at once).
 */
export async function openSocket(
  id: string,
  opts: { query?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<{ res: Response; probe: SocketProbe | null }> {
  const headers = new Headers({ upgrade: "websocket", ...opts.headers });
  const token = opts.token === undefined ? TOKEN : opts.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  const res = await worker.fetch(new Request(`${BASE}/v1/sessions/${id}/ws${opts.query ?? ""}`, { headers }));
  const ws = res.webSocket;
  if (!ws) return { res, probe: null };
  const frames: any[] = [];
  ws.accept();
  ws.addEventListener("message", (e: MessageEvent) => {
    frames.push(JSON.parse(e.data as string));
  });
  const waitFor: SocketProbe["waitFor"] = async (pred, { from = 0, timeoutMs = 20_000 } = {}) => {
    const start = Date.now();
    for (;;) {
      const hit = frames.slice(from).find(pred);
      if (hit) return hit;
      if (Date.now() - start > timeoutMs)
        throw new Error(`no matching frame; got ${JSON.stringify(frames.slice(from).map((f) => f.type))}`);
      await sleep(20);
    }
  };
  return {
    res,
    probe: {
      ws,
      frames,
      waitFor,
      send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
      close: () => {
        try {
          ws.close(1000, "done");
        } catch {
          // already closed
        }
      },
    },
  };
}

/** `fn` with an event store (session "s1") over a fresh object's migrated SQLite. */
export async function withStore(fn: (store: EventStore, sql: SqlStorage) => void | Promise<void>): Promise<void> {
  const stub = env.SESSIONS.get(env.SESSIONS.newUniqueId());
  await runInDurableObject(stub, async (_o, state) => {
    const transactionSync = <R>(f: () => R): R => state.storage.transactionSync(f);
    transactionSync(() => applyMigrations(state.storage.sql));
    await fn(new EventStore(state.storage.sql, "s1", transactionSync), state.storage.sql);
  });
}
