/**
 * History from the edge (docs/API.md §2 /events, §7.21, §7.22): a full page is served from the
 * Workers Cache API under a key that holds the reader's principal hash, stored without CORS;
 * partial pages, the head, and sessions with a jurisdiction always come from the object.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/log";
import { api, BASE, createSession, expectError, OTHER_TOKEN, TOKEN } from "./helpers";

const ORIGIN = "https://console.example";

/** A session with `n` events (seq 1 and n-1 PATCHes, each one stateDelta). */
async function sessionWith(n: number, options: unknown = {}) {
  const s = await createSession(options);
  for (let i = 1; i < n; i++) await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { title: `t${i}` } });
  return s.id;
}

function keyFor(token: string, id: string, after: number, limit: number): string {
  const reader = sha256Hex(`edge-cache:${sha256Hex(token)}`);
  return `${BASE}/__hw-cache/v1/${reader}/sessions/${id}/events?after=${after}&limit=${limit}`;
}

describe("a full page is answered from the edge cache (docs/API.md §7.22)", () => {
  it("the second read of a full page is a hit with the same body and ETag; the stored copy has no CORS", async () => {
    const id = await sessionWith(5);
    const first = await api(`/v1/sessions/${id}/events?after=0&limit=3`, { headers: { origin: ORIGIN } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-hw-edge-cache")).toBe("miss");
    const again = await api(`/v1/sessions/${id}/events?after=0&limit=3`, { headers: { origin: ORIGIN } });
    expect(again.headers.get("x-hw-edge-cache")).toBe("hit");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("etag")).toBe(`W/"${first.body.events[2].digest}"`);
    expect(again.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    // The answer to an allowed origin carries CORS; what is stored does not.
    expect(again.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const stored = await caches.default.match(keyFor(TOKEN, id, 0, 3));
    expect(stored).toBeDefined();
    expect([...stored!.headers.keys()].filter((k) => k.startsWith("access-control"))).toEqual([]);
    expect(await stored!.json()).toEqual(first.body);
    // The key never holds the token or the principal itself.
    expect(keyFor(TOKEN, id, 0, 3)).not.toContain(TOKEN);
    expect(keyFor(TOKEN, id, 0, 3)).not.toContain(sha256Hex(TOKEN));
  });

  it("a hit answers 304 to a matching If-None-Match", async () => {
    const id = await sessionWith(4);
    const first = await api(`/v1/sessions/${id}/events?after=1&limit=2`);
    const etag = first.headers.get("etag")!;
    const r = await api(`/v1/sessions/${id}/events?after=1&limit=2`, { headers: { "if-none-match": etag } });
    expect(r.status).toBe(304);
    expect(r.headers.get("x-hw-edge-cache")).toBe("hit");
  });

  it("a cached page may carry an older head, never older than its last event", async () => {
    const id = await sessionWith(3);
    const first = await api(`/v1/sessions/${id}/events?after=0&limit=2`);
    await api(`/v1/sessions/${id}`, { method: "PATCH", json: { title: "later" } });
    const hit = await api(`/v1/sessions/${id}/events?after=0&limit=2`);
    expect(hit.headers.get("x-hw-edge-cache")).toBe("hit");
    expect(hit.body.highWater).toBe(first.body.highWater);
    expect(hit.body.highWater).toBeGreaterThanOrEqual(hit.body.events.at(-1).seq);
  });
});

describe("a cached page is never served to another token", () => {
  it("another principal reading the same page gets 404, before and after it was cached", async () => {
    const id = await sessionWith(4);
    expectError(await api(`/v1/sessions/${id}/events?after=0&limit=2`, { token: OTHER_TOKEN }), 404, "not_found");
    await api(`/v1/sessions/${id}/events?after=0&limit=2`);
    const hit = await api(`/v1/sessions/${id}/events?after=0&limit=2`);
    expect(hit.headers.get("x-hw-edge-cache")).toBe("hit");
    const other = await api(`/v1/sessions/${id}/events?after=0&limit=2`, { token: OTHER_TOKEN });
    expectError(other, 404, "not_found");
    expect(JSON.stringify(other.body)).not.toContain(hit.body.events[0].digest);
    // Its key would be another one, and nothing is stored there.
    expect(await caches.default.match(keyFor(OTHER_TOKEN, id, 0, 2))).toBeUndefined();
  });
});

describe("what always goes to the object", () => {
  it("a partial page (the head) is never cached and shows new events at once", async () => {
    const id = await sessionWith(2);
    const head = await api(`/v1/sessions/${id}/events?after=0&limit=10`);
    expect(head.body.events).toHaveLength(2);
    expect(head.headers.get("cache-control")).toBe("private, no-cache");
    expect(head.headers.get("x-hw-edge-cache")).toBeNull();
    await api(`/v1/sessions/${id}`, { method: "PATCH", json: { title: "new" } });
    const next = await api(`/v1/sessions/${id}/events?after=0&limit=10`);
    expect(next.body.events).toHaveLength(3);
    expect(await caches.default.match(keyFor(TOKEN, id, 0, 10))).toBeUndefined();
  });

  it("pages of a session with a jurisdiction are never cached", async () => {
    const id = await sessionWith(4, { jurisdiction: "eu" });
    for (let i = 0; i < 2; i++) {
      const r = await api(`/v1/sessions/${id}/events?after=0&limit=2`);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-hw-edge-cache")).toBe("bypass");
    }
    expect(await caches.default.match(keyFor(TOKEN, id, 0, 2))).toBeUndefined();
  });

  it("a bad query is 400 and an unknown session 404, cache or not", async () => {
    expectError(await api(`/v1/sessions/${env.SESSIONS.newUniqueId()}/events?after=0&limit=2`), 404, "not_found");
    const id = await sessionWith(3);
    expectError(await api(`/v1/sessions/${id}/events?limit=1001`), 400, "bad_request");
  });
});

describe("a reader may ask for the object's answer", () => {
  it("Cache-Control: no-cache on the request skips the cache, and answers the same page", async () => {
    const id = await sessionWith(4);
    const first = await api(`/v1/sessions/${id}/events?after=0&limit=2`);
    const fresh = await api(`/v1/sessions/${id}/events?after=0&limit=2`, { headers: { "cache-control": "no-cache" } });
    expect(fresh.headers.get("x-hw-edge-cache")).toBe("miss");
    expect(fresh.body.events).toEqual(first.body.events);
  });
});
