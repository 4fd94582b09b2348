import { describe, expect, it } from "vitest";
import { api, BASE, createSession, expectError, highWaterOf, listSessionIds, waitForSession } from "./helpers";

/**
 * The HTTP edge from outside (docs/API.md §2, §7.1–7.3, §7.20, §7.23): CORS on every answer to an
 * allowed origin, errors included; ETag and 304; 405 naming what is allowed; the configured
 * providers; paging of /transcript and /files. The test Worker has no MODEL_* vars, so only
 * `demo` is configured.
 */

const ORIGIN = "https://console.example";
const fromConsole = { origin: ORIGIN };

function expectCors(headers: Headers) {
  expect(headers.get("access-control-allow-origin")).toBe(ORIGIN);
  expect(headers.get("access-control-expose-headers")?.toLowerCase()).toContain("etag");
}

describe("CORS on every answer to an allowed origin (docs/API.md §2, §7.3)", () => {
  it("401, 404, 405 and a bad-JSON 400 carry the CORS headers", async () => {
    const s = await createSession();
    const cases = [
      [await api("/v1/sessions", { token: null, headers: fromConsole }), 401, "unauthorized"],
      [await api("/v1/nothing", { headers: fromConsole }), 404, "not_found"],
      [await api(`/v1/sessions/${"ef".repeat(32)}`, { headers: fromConsole }), 404, "not_found"],
      [await api(`/v1/sessions/${s.id}`, { method: "DELETE", headers: fromConsole }), 405, "method_not_allowed"],
      [
        await api(`/v1/sessions/${s.id}/messages`, { method: "POST", body: "{", headers: fromConsole }),
        400,
        "bad_request",
      ],
    ] as const;
    for (const [r, status, code] of cases) {
      expectError(r, status, code);
      expectCors(r.headers);
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
  });

  it("a preflight allows If-None-Match and Authorization; a foreign origin's preflight is 403", async () => {
    const ok = await api("/v1/sessions/x/events", {
      method: "OPTIONS",
      token: null,
      headers: { origin: ORIGIN, "access-control-request-method": "GET" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const allowed = ok.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    expect(allowed).toContain("if-none-match");
    expect(allowed).toContain("authorization");
    const bad = await api("/v1/sessions", {
      method: "OPTIONS",
      token: null,
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expectError(bad, 403, "forbidden");
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a full /events page has an ETag; a matching If-None-Match is 304 with CORS", async () => {
    const s = await createSession();
    const page = await api(`/v1/sessions/${s.id}/events?after=0&limit=1`, { headers: fromConsole });
    expect(page.status).toBe(200);
    const etag = page.headers.get("etag");
    expect(etag).toBe(`W/"${page.body.events[0].digest}"`);
    expect(page.headers.get("cache-control")).toContain("immutable");
    const again = await api(`/v1/sessions/${s.id}/events?after=0&limit=1`, {
      headers: { ...fromConsole, "if-none-match": etag! },
    });
    expect(again.status).toBe(304);
    expectCors(again.headers);
    // A page at the head (fewer than `limit` events) is neither tagged nor immutable.
    const head = await api(`/v1/sessions/${s.id}/events?after=0&limit=1000`);
    expect(head.headers.get("etag")).toBeNull();
    expect(head.headers.get("cache-control") ?? "").not.toContain("immutable");
  });
});

describe("405 from the routes themselves", () => {
  it("names the allowed methods in Allow", async () => {
    const s = await createSession();
    const r = await api(`/v1/sessions/${s.id}/events`, { method: "POST", body: "{}" });
    expectError(r, 405, "method_not_allowed");
    expect(r.headers.get("allow")).toBe("GET");
    const list = await api("/v1/sessions", { method: "DELETE" });
    expectError(list, 405, "method_not_allowed");
    expect(list.headers.get("allow")).toBe("POST, GET");
  });
});

describe("providers (docs/API.md §1, §7.23)", () => {
  it("GET /v1/providers lists only the configured ones", async () => {
    const r = await api("/v1/providers");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ providers: [{ name: "demo", isDefault: true, defaultModel: "demo", demo: true }] });
    expectError(await api("/v1/providers", { token: null }), 401, "unauthorized");
  });

  it("creating a session with an unconfigured provider is 400 and creates nothing", async () => {
    // Every page: the files of a test worker share its sessions, so they may be more than one page.
    const before = await listSessionIds();
    for (const provider of ["openai", "anthropic", "workers-ai"]) {
      expectError(await api("/v1/sessions", { method: "POST", json: { model: { provider } } }), 400, "bad_request");
    }
    expect(await listSessionIds()).toEqual(before);
    expect((await api("/v1/sessions", { method: "POST", json: { model: { provider: "demo" } } })).status).toBe(201);
  });

  it("PATCH to an unconfigured provider is 400 and appends nothing", async () => {
    const s = await createSession();
    for (const provider of ["openai", "anthropic"]) {
      const r = await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { model: { provider } } });
      expectError(r, 400, "bad_request");
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
  });
});

describe("paging (docs/API.md §7.20)", () => {
  it("GET /transcript pages by seq with next; bad after/limit are 400", async () => {
    const s = await createSession();
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "hello", idempotencyKey: "p-1" } });
    await waitForSession(s.id, (x) => x.openTurn === false);
    const all = await api(`/v1/sessions/${s.id}/transcript`);
    expect(all.status).toBe(200);
    expect(all.body.next).toBeUndefined();
    const items = all.body.items as { seq: number }[];
    expect(items.length).toBeGreaterThan(1);
    const first = await api(`/v1/sessions/${s.id}/transcript?limit=1`);
    expect(first.body.items).toEqual([items[0]]);
    // `next` is an event cursor: past the page's last item, before the next page's first.
    expect(first.body.next).toBeGreaterThanOrEqual(items[0]!.seq);
    expect(first.body.next).toBeLessThan(items[1]!.seq);
    const rest = await api(`/v1/sessions/${s.id}/transcript?after=${first.body.next}&limit=500`);
    expect(rest.body.items).toEqual(items.slice(1));
    const hw = await highWaterOf(s.id);
    for (const q of ["limit=0", "limit=501", "after=-1", "after=x", "limit=1.5", "other=1"]) {
      expectError(await api(`/v1/sessions/${s.id}/transcript?${q}`), 400, "bad_request");
    }
    expect(await highWaterOf(s.id)).toBe(hw);
  });

  it("GET /files pages by path with next; bad limits are 400", async () => {
    const s = await createSession();
    const empty = await api(`/v1/sessions/${s.id}/files?limit=1000`);
    expect(empty.body).toEqual({ files: [] });
    for (const q of ["limit=0", "limit=1001", "after=", "x=1"]) {
      expectError(await api(`/v1/sessions/${s.id}/files?${q}`), 400, "bad_request");
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
  });
});

describe("requests the old edge mishandled", () => {
  it("an unknown route under a session, with a body, is 404 before the body is parsed", async () => {
    const s = await createSession();
    expectError(await api(`/v1/sessions/${s.id}/nothing`, { method: "POST", body: "{" }), 404, "not_found");
    expect(await highWaterOf(s.id)).toBe(s.highWater);
  });

  it("the Worker's own origin needs no ALLOWED_ORIGINS entry", async () => {
    const r = await api("/v1/sessions?limit=1", { headers: { origin: BASE } });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe(BASE);
  });
});
