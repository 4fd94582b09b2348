import { sha256Hex } from "../log";
import type { EdgeContext } from "./types";

/** How a cached page is stored: a long-lived, shareable response (the key is private, see `pageKey`). */
const STORED_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * The Workers Cache API for full `/events` pages (docs/API.md §7.21–7.22), or null where it does
 * nothing: outside workerd (Node tests), and on `*.workers.dev`, where Cloudflare ignores it.
 */
export function pageCache(c: EdgeContext): Cache | null {
  const store = (globalThis as { caches?: { default?: Cache } }).caches?.default;
  if (!store) return null;
  if (new URL(c.req.url).hostname.endsWith(".workers.dev")) return null;
  return store;
}

/**
 * The cache key of one page: a URL on the Worker's own origin holding a hash of the principal,
 * so a page stored for one token can only ever be found again by the same token. A page is
 * stored only after the session object admitted that principal (ownership never changes: it
 * is in seq 1), so a hit proves the read was allowed without asking the object again.
 */
export function pageKey(c: EdgeContext, sessionId: string, after: number, limit: number): Request {
  const origin = new URL(c.req.url).origin;
  const reader = sha256Hex(`edge-cache:${c.get("principal")}`);
  return new Request(`${origin}/__hw-cache/v1/${reader}/sessions/${sessionId}/events?after=${after}&limit=${limit}`);
}

/** The stored copy of a page: its body, ETag and content type only (no CORS, no per-request headers). */
export function storedPage(body: string, etag: string): Response {
  return new Response(body, {
    headers: { "content-type": "application/json", etag, "cache-control": STORED_CACHE_CONTROL },
  });
}

/** Runs `work` after the answer where the platform allows it, else waits for it. */
export async function afterAnswer(c: EdgeContext, work: Promise<unknown>): Promise<void> {
  const guarded = work.catch((err) => console.error("highwater: edge cache", err));
  let ctx: ExecutionContext | null = null;
  try {
    ctx = c.executionCtx as ExecutionContext;
  } catch {
    ctx = null;
  }
  if (ctx) ctx.waitUntil(guarded);
  else await guarded;
}
