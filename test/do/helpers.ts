import { exports } from "cloudflare:workers";

export const TOKEN = "test-token-a";
export const OTHER_TOKEN = "test-token-b";
export const BASE = "http://hw.test";

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
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers, body }));
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
