import { describe, expect, it } from "vitest";
import { freshSession, post, postRaw } from "./bad-input-support";
import { api, BASE, expectError, listSessionIds, OTHER_TOKEN, TOKEN, worker } from "./helpers";

/**
 * docs/API.md §2: every rejected request answers `{ error: { code, message } }` with the status
 * of its code, and appends nothing. Each case reads the session before and after.
 */

describe("authentication and origin (401, 403)", () => {
  it("no token is 401 unauthorized", async () => {
    const s = await freshSession();
    expectError(await api(`/v1/sessions/${s.id}`, { token: null }), 401, "unauthorized");
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "hi" }, null), 401, "unauthorized");
    await s.unchanged();
  });

  it("an unknown token is 401 unauthorized", async () => {
    const s = await freshSession();
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "hi" }, "test-token-zzz"), 401, "unauthorized");
    await s.unchanged();
  });

  it("a malformed Authorization header is 401 unauthorized", async () => {
    const s = await freshSession();
    for (const authorization of [
      "Bearer",
      "Bearer ",
      `Basic ${btoa("user:test-token-a")}`,
      `Token ${TOKEN}`,
      `Bearer${TOKEN}`,
      `Bearer ${TOKEN} extra`,
      TOKEN,
    ]) {
      const r = await api(`/v1/sessions/${s.id}/messages`, {
        method: "POST",
        json: { text: "hi" },
        token: null,
        headers: { authorization },
      });
      expectError(r, 401, "unauthorized");
    }
    await s.unchanged();
  });

  it("a forbidden Origin is 403 forbidden; the allowed one passes", async () => {
    const s = await freshSession();
    const r = await api(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      json: { text: "hi" },
      headers: { origin: "https://evil.example" },
    });
    expectError(r, 403, "forbidden");
    expectError(await api(`/v1/sessions/${s.id}`, { headers: { origin: "null" } }), 403, "forbidden");
    await s.unchanged();
    const ok = await api(`/v1/sessions/${s.id}`, { headers: { origin: "https://console.example" } });
    expect(ok.status).toBe(200);
  });
});

describe("size limits (413)", () => {
  it("a body over 1,048,576 bytes with a Content-Length is 413, before the body is read", async () => {
    const s = await freshSession();
    const big = JSON.stringify({ text: "x".repeat(1_048_576) });
    expectError(await postRaw(`/v1/sessions/${s.id}/messages`, big), 413, "payload_too_large");
    // A declared length over the cap on an unknown route's neighbour: the 413 comes from the
    // header, before the body is read (its bytes are then drained, docs/API.md §7.2).
    const { readable, writable } = new FixedLengthStream(2_000_000);
    const writer = writable.getWriter();
    void (async () => {
      const chunk = new Uint8Array(100_000).fill(0x61);
      for (let i = 0; i < 20; i++) await writer.write(chunk);
      await writer.close();
    })().catch(() => {});
    const res = await worker.fetch(
      new Request(`${BASE}/v1/sessions/${s.id}/messages`, {
        method: "POST",
        body: readable,
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    );
    expectError({ status: res.status, body: await res.json() }, 413, "payload_too_large");
    await s.unchanged();
  });

  it("a streamed body with no Content-Length is cut off at 1,048,576 bytes with 413", async () => {
    const s = await freshSession();
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 17 × 64 KiB = 1,114,112 bytes: over the cap, and not JSON, so only the size check can answer 413.
        if (sent === 17) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const req = new Request(`${BASE}/v1/sessions/${s.id}/messages`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${TOKEN}` },
      duplex: "half",
    } as RequestInit);
    expect(req.headers.get("content-length")).toBeNull();
    const res = await worker.fetch(req);
    expectError({ status: res.status, body: await res.json() }, 413, "payload_too_large");
    await s.unchanged();
  });

  it("a message text over 262,144 UTF-8 bytes is 413 (counted in bytes, not characters)", async () => {
    const s = await freshSession();
    // 131,073 characters, 262,146 bytes: under the limit in UTF-16 units, over it in UTF-8.
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "é".repeat(131_073) }), 413, "payload_too_large");
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "x".repeat(262_145) }), 413, "payload_too_large");
    await s.unchanged();
  });
});

describe("unknown things (404)", () => {
  it("an unknown route is 404 not_found", async () => {
    const s = await freshSession();
    expectError(await api("/v1/nothing"), 404, "not_found");
    expectError(await api(`/v1/sessions/${s.id}/nothing`), 404, "not_found");
    expectError(await post(`/v1/sessions/${s.id}/messages/extra`, { text: "hi" }), 404, "not_found");
    await s.unchanged();
  });

  it("a well-formed session id that was never created is 404 and is not created by reading it", async () => {
    const ghost = "ab".repeat(32);
    const before = await listSessionIds(TOKEN);
    expectError(await api(`/v1/sessions/${ghost}`), 404, "not_found");
    expectError(await api(`/v1/sessions/${ghost}/events`), 404, "not_found");
    expectError(await post(`/v1/sessions/${ghost}/messages`, { text: "hi" }), 404, "not_found");
    expectError(await api(`/v1/sessions/${ghost}/ws`, { headers: { upgrade: "websocket" } }), 404, "not_found");
    // Still unknown afterwards: nothing above brought it into existence.
    expectError(await api(`/v1/sessions/${ghost}`), 404, "not_found");
    const after = await listSessionIds(TOKEN);
    expect(after).not.toContain(ghost);
    expect(before).not.toContain(ghost);
  });

  it("a malformed session id is 404 not_found", async () => {
    const s = await freshSession();
    for (const id of ["abc", s.id.toUpperCase(), `${s.id}0`, s.id.slice(1), "zz".repeat(32), "%00"]) {
      expectError(await api(`/v1/sessions/${id}`), 404, "not_found");
      expectError(await post(`/v1/sessions/${id}/messages`, { text: "hi" }), 404, "not_found");
    }
    await s.unchanged();
  });

  it("another principal's session is 404 not_found for every route", async () => {
    const s = await freshSession();
    const asOther = (path: string, init: Parameters<typeof api>[1] = {}) => api(path, { ...init, token: OTHER_TOKEN });
    expectError(await asOther(`/v1/sessions/${s.id}`), 404, "not_found");
    expectError(await asOther(`/v1/sessions/${s.id}/events`), 404, "not_found");
    expectError(
      await asOther(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "hi" } }),
      404,
      "not_found",
    );
    expectError(await asOther(`/v1/sessions/${s.id}`, { method: "PATCH", json: { title: "mine" } }), 404, "not_found");
    expectError(await asOther(`/v1/sessions/${s.id}/stop`, { method: "POST" }), 404, "not_found");
    expectError(await asOther(`/v1/sessions/${s.id}/tickets`, { method: "POST" }), 404, "not_found");
    expect((await listSessionIds(OTHER_TOKEN)).includes(s.id)).toBe(false);
    await s.unchanged();
  });

  it("an unknown approval requestId is 404, malformed or well-formed", async () => {
    const s = await freshSession();
    for (const requestId of ["nope", "apr_zzzz", `apr_${"0".repeat(24)}`]) {
      expectError(await post(`/v1/sessions/${s.id}/approvals/${requestId}`, { decision: "approve" }), 404, "not_found");
    }
    await s.unchanged();
  });

  it("an archive ref that is not hex, or names no blob, is 404", async () => {
    const s = await freshSession();
    expectError(await api(`/v1/sessions/${s.id}/archive/not-a-sha`), 404, "not_found");
    expectError(await api(`/v1/sessions/${s.id}/archive/${"G".repeat(64)}`), 404, "not_found");
    expectError(await api(`/v1/sessions/${s.id}/archive/${"ab".repeat(32)}`), 404, "not_found");
    await s.unchanged();
  });
});

describe("wrong method (405)", () => {
  it("a known route with the wrong method is 405 method_not_allowed", async () => {
    const s = await freshSession();
    const cases: [string, string][] = [
      ["DELETE", `/v1/sessions/${s.id}`],
      ["PUT", `/v1/sessions/${s.id}/messages`],
      ["GET", `/v1/sessions/${s.id}/messages`],
      ["GET", `/v1/sessions/${s.id}/stop`],
      ["POST", `/v1/sessions/${s.id}/events`],
      ["DELETE", "/v1/sessions"],
    ];
    for (const [method, path] of cases) {
      const r = await api(path, {
        method,
        ...(method === "GET" || method === "DELETE" ? {} : { json: { text: "hi" } }),
      });
      expectError(r, 405, "method_not_allowed");
    }
    await s.unchanged();
  });
});
