import { describe, expect, it } from "vitest";
import { expectNoSessionCreated, freshSession, post, postRaw } from "./bad-input-support";
import { api, BASE, expectError, OTHER_TOKEN, waitForSession, worker } from "./helpers";

/** Bad input, continued from bad-input.test.ts: rejected, with the contract's error shape, appending nothing. */

describe("bodies and queries (400)", () => {
  it("a body that is not JSON is 400", async () => {
    const s = await freshSession();
    for (const body of ["{", "text=hi", '{"text":"hi",}', "undefined"]) {
      expectError(await postRaw(`/v1/sessions/${s.id}/messages`, body), 400, "bad_request");
    }
    await s.unchanged();
  });

  it("a text that is not a string is 400", async () => {
    const s = await freshSession();
    for (const text of [42, null, ["hi"], { t: "hi" }, true]) {
      expectError(await post(`/v1/sessions/${s.id}/messages`, { text }), 400, "bad_request");
    }
    expectError(await post(`/v1/sessions/${s.id}/messages`, {}), 400, "bad_request");
    expectError(await postRaw(`/v1/sessions/${s.id}/messages`, "[]"), 400, "bad_request");
    expectError(await postRaw(`/v1/sessions/${s.id}/messages`, ""), 400, "bad_request");
    await s.unchanged();
  });

  it("an empty text is 400", async () => {
    const s = await freshSession();
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "" }), 400, "bad_request");
    await s.unchanged();
  });

  it("an unknown extra field is 400", async () => {
    const s = await freshSession();
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "hi", role: "system" }), 400, "bad_request");
    expectError(
      await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { title: "t", color: "red" } }),
      400,
      "bad_request",
    );
    await s.unchanged();
  });

  it("a lone UTF-16 surrogate in text is 400", async () => {
    const s = await freshSession();
    for (const escaped of ["\\ud800", "a\\udfffb", "\\udc00\\ud800"]) {
      const r = await postRaw(`/v1/sessions/${s.id}/messages`, `{"text":"${escaped}"}`);
      expectError(r, 400, "bad_request");
    }
    await s.unchanged();
    // A well-formed pair is fine (the same escape syntax, so the test above is not vacuous).
    const ok = await postRaw(`/v1/sessions/${s.id}/messages`, '{"text":"\\ud83d\\ude00"}');
    expect(ok.status).toBe(202);
    await waitForSession(s.id, (x) => x.openTurn === false);
  });

  it("a bad idempotencyKey is 400", async () => {
    const s = await freshSession();
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "hi", idempotencyKey: "" }), 400, "bad_request");
    expectError(await post(`/v1/sessions/${s.id}/messages`, { text: "hi", idempotencyKey: 7 }), 400, "bad_request");
    await s.unchanged();
  });

  it("events with ?after or ?limit out of range or not an integer is 400", async () => {
    const s = await freshSession();
    for (const q of [
      "after=-1",
      "after=abc",
      "after=1.5",
      "after=1e3",
      "after=",
      "limit=0",
      "limit=1001",
      "limit=-5",
      "limit=x",
      "foo=1",
    ]) {
      expectError(await api(`/v1/sessions/${s.id}/events?${q}`), 400, "bad_request");
    }
    await s.unchanged();
    const ok = await api(`/v1/sessions/${s.id}/events?after=0&limit=1000`);
    expect(ok.status).toBe(200);
  });

  it("a bad workspace path in GET /files/<path> is 400", async () => {
    const s = await freshSession();
    // Percent-encoded so the URL parser keeps them; the route decodes once (docs/API.md §5).
    for (const p of [
      "..%2f..%2fetc",
      "%2e%2e%2fx",
      "a%2f%2e%2e%2fb",
      "a%5cb",
      "a%00b",
      "a//b",
      ".%2fa",
      "%2fetc",
      "%E0%A4%A",
    ]) {
      expectError(await api(`/v1/sessions/${s.id}/files/${p}`), 400, "bad_request");
    }
    const longSegment = "a".repeat(256);
    expectError(await api(`/v1/sessions/${s.id}/files/${longSegment}`), 400, "bad_request");
    await s.unchanged();
  });

  it("`a/../b` and `%2e%2e/x` are resolved by the URL parser before the route sees them: they never escape", async () => {
    const s = await freshSession();
    // WHATWG URL parsing removes dot segments (also %2e%2e), so these name other paths of the
    // API, never a file outside the workspace: `files/a/../b` is the file "b", which does not exist.
    expectError(await api(`/v1/sessions/${s.id}/files/a/../b`), 404, "not_found");
    expectError(await api(`/v1/sessions/${s.id}/files/%2e%2e/x`), 404, "not_found");
    await s.unchanged();
  });

  it("POST /stop with a non-empty body is 400; an empty body or {} is fine", async () => {
    const s = await freshSession();
    expectError(await post(`/v1/sessions/${s.id}/stop`, { force: true }), 400, "bad_request");
    expectError(await postRaw(`/v1/sessions/${s.id}/stop`, "[]"), 400, "bad_request");
    expectError(await postRaw(`/v1/sessions/${s.id}/stop`, "null"), 400, "bad_request");
    expectError(await postRaw(`/v1/sessions/${s.id}/stop`, "nope"), 400, "bad_request");
    await s.unchanged();
    expect((await api(`/v1/sessions/${s.id}/stop`, { method: "POST" })).status).toBe(200);
    expect((await post(`/v1/sessions/${s.id}/stop`, {})).status).toBe(200);
    await s.unchanged();
  });

  it("a PATCH that would put the threshold under 1000 tokens is 400", async () => {
    const s = await freshSession();
    expectError(
      await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { model: { contextWindow: 1024 } } }),
      400,
      "bad_request",
    );
    expectError(
      await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { model: { provider: "nope" } } }),
      400,
      "bad_request",
    );
    await s.unchanged();
  });
});

// An unreadable body (a broken stream) is tested in test/unit/http/edge.test.ts and against a
// real wrangler in test/e2e/http-keepalive.test.ts: in-process, workerd delivers a broken
// stream to the Worker as a short body rather than a read error.
describe("bodies the edge cannot take (docs/API.md §7.1, §7.2)", () => {
  it("a JSON null body is 400 on POST /sessions and PATCH; only an empty body means {}", async () => {
    await expectNoSessionCreated(async () => {
      expectError(await api("/v1/sessions", { method: "POST", body: "null", token: OTHER_TOKEN }), 400, "bad_request");
    });
    const s = await freshSession();
    expectError(await api(`/v1/sessions/${s.id}`, { method: "PATCH", body: "null" }), 400, "bad_request");
    await s.unchanged();
    // The empty body is {}: PATCH with nothing changes nothing it would refuse.
    const empty = await api("/v1/sessions", { method: "POST", body: "", token: OTHER_TOKEN });
    expect(empty.status).toBe(201);
  });
});

describe("sub-resources are looked up before bodies and queries (docs/API.md §7.1)", () => {
  it("an unknown approval id with a bad body is 404, not 400", async () => {
    const s = await freshSession();
    for (const body of ['{"decision":"maybe"}', "{", "null", ""]) {
      expectError(await postRaw(`/v1/sessions/${s.id}/approvals/apr_${"0".repeat(24)}`, body), 404, "not_found");
    }
    await s.unchanged();
  });

  it("an unknown archive ref with a bad query is 404, not 400", async () => {
    const s = await freshSession();
    for (const q of ["offset=-1", "limit=0", "nope=1"]) {
      expectError(await api(`/v1/sessions/${s.id}/archive/${"ab".repeat(32)}?${q}`), 404, "not_found");
    }
    await s.unchanged();
  });

  it("a used ticket with a bad Origin is 401, not 403", async () => {
    const s = await freshSession();
    const t = await api(`/v1/sessions/${s.id}/tickets`, { method: "POST" });
    expect(t.status).toBe(201);
    const ticket = encodeURIComponent(t.body.ticket);
    const ws = (origin: string) =>
      api(`/v1/sessions/${s.id}/ws?ticket=${ticket}`, { token: null, headers: { upgrade: "websocket", origin } });
    const first = await worker.fetch(
      new Request(`${BASE}/v1/sessions/${s.id}/ws?ticket=${ticket}`, {
        headers: { upgrade: "websocket", origin: "https://console.example" },
      }),
    );
    expect(first.status).toBe(101);
    first.webSocket?.accept();
    first.webSocket?.close(1000, "done");
    expectError(await ws("https://evil.example"), 401, "unauthorized");
    // An unused ticket with a bad Origin is still 403.
    const fresh = await api(`/v1/sessions/${s.id}/tickets`, { method: "POST" });
    const res = await api(`/v1/sessions/${s.id}/ws?ticket=${encodeURIComponent(fresh.body.ticket)}`, {
      token: null,
      headers: { upgrade: "websocket", origin: "https://evil.example" },
    });
    expectError(res, 403, "forbidden");
    await s.unchanged();
  });
});
