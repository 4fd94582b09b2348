import { describe, expect, it } from "vitest";
import {
  api,
  BASE,
  createSession,
  expectError,
  highWaterOf,
  listSessionIds,
  OTHER_TOKEN,
  TOKEN,
  waitForSession,
  worker,
} from "./helpers";

/**
 * CONTRACT §2: every rejected request answers `{ error: { code, message } }` with the status
 * of its code, and appends nothing. Each case reads the session before and after.
 */

type Head = { highWater: number; headDigest: string };

async function head(id: string): Promise<Head> {
  const r = await api(`/v1/sessions/${id}`);
  expect(r.status).toBe(200);
  return { highWater: r.body.highWater, headDigest: r.body.headDigest };
}

/** A fresh session and its head; `unchanged()` asserts the log did not move. */
async function freshSession(options: unknown = {}) {
  const s = await createSession(options);
  const before = await head(s.id);
  return {
    id: s.id,
    before,
    unchanged: async () => expect(await head(s.id)).toEqual(before),
  };
}

/** For creation cases: runs under the second principal, which only this file's creation cases touch. */
async function expectNoSessionCreated(attempt: () => Promise<void>) {
  const before = await listSessionIds(OTHER_TOKEN);
  await attempt();
  expect(await listSessionIds(OTHER_TOKEN)).toEqual(before);
}

const post = (path: string, json: unknown, token: string | null = TOKEN) => api(path, { method: "POST", json, token });
const postRaw = (path: string, body: string, headers: Record<string, string> = {}) =>
  api(path, { method: "POST", body, headers });

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
    // header, before the body is read (its bytes are then drained, CONTRACT §7.2).
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
    // Percent-encoded so the URL parser keeps them; the route decodes once (CONTRACT §5).
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

describe("session creation that is refused creates nothing", () => {
  const create = (json: unknown) => api("/v1/sessions", { method: "POST", json, token: OTHER_TOKEN });

  it("an unknown tool in `tools` is 400", async () => {
    await expectNoSessionCreated(async () => {
      expectError(await create({ tools: ["write_file", "format_disk"] }), 400, "bad_request");
    });
  });

  it("an approval rule naming an unknown or disabled tool is 400", async () => {
    await expectNoSessionCreated(async () => {
      expectError(await create({ approvals: [{ tool: "format_disk" }] }), 400, "bad_request");
      expectError(await create({ tools: ["read_file"], approvals: [{ tool: "write_file" }] }), 400, "bad_request");
    });
  });

  it("a contextWindow whose threshold would be under 1000 tokens is 400", async () => {
    await expectNoSessionCreated(async () => {
      // W=1024: min(921, 1024 − 256 − 21) = 747.
      expectError(await create({ model: { contextWindow: 1024 } }), 400, "bad_request");
      // W=4000, out=2900: min(3600, 4000 − 2900 − 80) = 1020 is fine; out=2950 gives 970.
      expectError(await create({ model: { contextWindow: 4000, maxOutputTokens: 2950 } }), 400, "bad_request");
      expectError(await create({ model: { contextWindow: 100 } }), 400, "bad_request");
    });
  });

  it("schema violations in SessionOptions are 400", async () => {
    await expectNoSessionCreated(async () => {
      expectError(await create({ title: 5 }), 400, "bad_request");
      expectError(await create({ unknownOption: true }), 400, "bad_request");
      expectError(await create({ offloadThresholdBytes: 1 }), 400, "bad_request");
      expectError(await create({ locationHint: "mars" }), 400, "bad_request");
      expectError(await create([]), 400, "bad_request");
      const notJson = await api("/v1/sessions", { method: "POST", body: "{title", token: OTHER_TOKEN });
      expectError(notJson, 400, "bad_request");
    });
  });

  it("an unauthenticated or cross-origin create is refused before the body is read", async () => {
    await expectNoSessionCreated(async () => {
      expectError(await api("/v1/sessions", { method: "POST", json: {}, token: null }), 401, "unauthorized");
      const r = await api("/v1/sessions", {
        method: "POST",
        json: {},
        token: OTHER_TOKEN,
        headers: { origin: "https://evil.example" },
      });
      expectError(r, 403, "forbidden");
    });
  });
});

describe("check order (CONTRACT §7.1)", () => {
  it("401 before 403 before 413 before 404 route before 405 before 404 session before 400", async () => {
    const s = await freshSession();
    const big = JSON.stringify({ text: "x".repeat(1_100_000) });
    const evil = { origin: "https://evil.example" };
    // no token + bad origin + too large → 401
    expectError(
      await api(`/v1/sessions/${s.id}/messages`, { method: "POST", body: big, token: null, headers: evil }),
      401,
      "unauthorized",
    );
    // bad origin + too large → 403
    expectError(
      await api(`/v1/sessions/${s.id}/messages`, { method: "POST", body: big, headers: evil }),
      403,
      "forbidden",
    );
    // too large + unknown session → 413
    expectError(
      await api(`/v1/sessions/${"cd".repeat(32)}/messages`, { method: "POST", body: big }),
      413,
      "payload_too_large",
    );
    // too large + unknown route → 413 (from Content-Length, before routing)
    expectError(await api("/v1/nothing", { method: "POST", body: big }), 413, "payload_too_large");
    // unknown route + unknown session → 404 unknown route
    expectError(await api(`/v1/sessions/${"cd".repeat(32)}/nothing`), 404, "not_found");
    // wrong method + unknown session → 405 (CONTRACT §7.1: 405 before the session lookup)
    expectError(await api(`/v1/sessions/${"cd".repeat(32)}`, { method: "DELETE" }), 405, "method_not_allowed");
    // wrong method + bad JSON → 405
    expectError(await api(`/v1/sessions/${s.id}/messages`, { method: "PUT", body: "{" }), 405, "method_not_allowed");
    await s.unchanged();
  });
});

describe("conflicts and idempotency", () => {
  it("deciding an approval twice is 409 and appends nothing the second time", async () => {
    const s = await freshSession({ approvals: [{ tool: "write_file" }] });
    expect((await post(`/v1/sessions/${s.id}/messages`, { text: "note this down" })).status).toBe(202);
    const waiting = await waitForSession(
      s.id,
      (x) => x.status === "waiting_approval" && x.pendingApprovals.length === 1,
    );
    const { requestId } = waiting.pendingApprovals[0];
    const first = await post(`/v1/sessions/${s.id}/approvals/${requestId}`, { decision: "approve" });
    expect(first.status).toBe(200);
    // The approval now runs the call; whatever it appends, a second decision must append nothing.
    const done = await waitForSession(s.id, (x) => x.openTurn === false);
    const hw = done.highWater;
    expectError(await post(`/v1/sessions/${s.id}/approvals/${requestId}`, { decision: "approve" }), 409, "conflict");
    expectError(await post(`/v1/sessions/${s.id}/approvals/${requestId}`, { decision: "reject" }), 409, "conflict");
    expect(await highWaterOf(s.id)).toBe(hw);
  });

  it("a bad decision body for a pending approval is 400 and leaves it pending", async () => {
    const s = await freshSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${s.id}/messages`, { text: "note this down" });
    const waiting = await waitForSession(
      s.id,
      (x) => x.status === "waiting_approval" && x.pendingApprovals.length === 1,
    );
    const { requestId } = waiting.pendingApprovals[0];
    const path = `/v1/sessions/${s.id}/approvals/${requestId}`;
    for (const body of [
      { decision: "maybe" },
      {},
      { decision: "approve", extra: 1 },
      { decision: "approve", reason: 5 },
    ]) {
      expectError(await post(path, body), 400, "bad_request");
    }
    expectError(await api(path, { method: "POST" }), 400, "bad_request");
    const after = await api(`/v1/sessions/${s.id}`);
    expect(after.body.highWater).toBe(waiting.highWater);
    expect(after.body.pendingApprovals).toEqual(waiting.pendingApprovals);
    await api(`/v1/sessions/${s.id}/stop`, { method: "POST" });
  });

  it("a repeated idempotencyKey returns the first answer and appends nothing", async () => {
    const s = await freshSession();
    const first = await post(`/v1/sessions/${s.id}/messages`, { text: "once only", idempotencyKey: "k-1" });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ turnId: expect.any(String), seq: s.before.highWater + 1 });
    const done = await waitForSession(s.id, (x) => x.openTurn === false);
    const second = await post(`/v1/sessions/${s.id}/messages`, { text: "once only", idempotencyKey: "k-1" });
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    // Different text with the same key is still the same request: the first answer wins.
    const third = await post(`/v1/sessions/${s.id}/messages`, { text: "something else", idempotencyKey: "k-1" });
    expect(third.body).toEqual(first.body);
    expect(await highWaterOf(s.id)).toBe(done.highWater);
    const users = (await api(`/v1/sessions/${s.id}/events?limit=1000`)).body.events.filter(
      (e: any) => e.author === "user" && e.content?.type === "text",
    );
    expect(users).toHaveLength(1);
  });
});

// An unreadable body (a broken stream) is tested in test/unit/http/edge.test.ts and against a
// real wrangler in test/e2e/http-keepalive.test.ts: in-process, workerd delivers a broken
// stream to the Worker as a short body rather than a read error.
describe("bodies the edge cannot take (CONTRACT §7.1, §7.2)", () => {
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

describe("sub-resources are looked up before bodies and queries (CONTRACT §7.1)", () => {
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
