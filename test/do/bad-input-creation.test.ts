import { describe, expect, it } from "vitest";
import { expectNoSessionCreated, freshSession, post } from "./bad-input-support";
import { api, expectError, highWaterOf, OTHER_TOKEN, waitForSession } from "./helpers";

/** Bad input, continued from bad-input.test.ts: rejected, with the contract's error shape, appending nothing. */

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

describe("check order (docs/API.md §7.1)", () => {
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
    // wrong method + unknown session → 405 (docs/API.md §7.1: 405 before the session lookup)
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
