import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/log";
import { api, createSession, expectError, highWaterOf, openSocket, TOKEN } from "./helpers";

/**
 * WebSocket tickets are opaque (docs/API.md#live-updates-over-a-websocket): random values that
 * say nothing about the token or the principal, since they travel in URLs that proxies log;
 * the object keeps only their hash. A ticket in the older `<sha256(token)>.<random>` form is 401.
 */

const ORIGIN = "https://console.example";
const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));

async function mint(id: string): Promise<string> {
  const r = await api(`/v1/sessions/${id}/tickets`, { method: "POST" });
  expect(r.status).toBe(201);
  return r.body.ticket as string;
}

describe("opaque tickets", () => {
  it("a ticket is 256 random bits with no sha256(token) in it; the object stores only its hash", async () => {
    const s = await createSession();
    const principal = sha256Hex(TOKEN);
    const tickets = [await mint(s.id), await mint(s.id)];
    for (const t of tickets) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(t).not.toContain(principal);
      expect(t).not.toContain(principal.slice(0, 16));
      expect(t).not.toContain(TOKEN);
    }
    expect(tickets[0]).not.toBe(tickets[1]);
    const stored = await runInDurableObject(stubOf(s.id), (_o, state) =>
      state.storage.sql.exec<{ hash: string }>("SELECT hash FROM tickets ORDER BY hash").toArray(),
    );
    expect(stored.map((r) => r.hash)).toEqual(tickets.map((t) => sha256Hex(t)).sort());

    // It still opens the socket, once, for its session's owner.
    const { res, probe } = await openSocket(s.id, {
      token: null,
      query: `?ticket=${tickets[0]}`,
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(101);
    probe!.close();
    expect(await highWaterOf(s.id)).toBe(1);
  });

  it("an old-format ticket (<principal>.<random>), even one stored and unexpired, is 401 and appends nothing", async () => {
    const s = await createSession();
    const old = `${sha256Hex(TOKEN)}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    await runInDurableObject(stubOf(s.id), (_o, state) => {
      state.storage.sql.exec(
        "INSERT INTO tickets (hash, principal, expires_at) VALUES (?, ?, ?)",
        sha256Hex(old),
        sha256Hex(TOKEN),
        Date.now() + 60_000,
      );
    });
    const { res, probe } = await openSocket(s.id, {
      token: null,
      query: `?ticket=${encodeURIComponent(old)}`,
      headers: { origin: ORIGIN },
    });
    expect(probe).toBeNull();
    expectError({ status: res.status, body: await res.json() }, 401, "unauthorized");
    expect(await highWaterOf(s.id)).toBe(1);
  });
});
