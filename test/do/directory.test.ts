import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/log";
import { api, BASE, createSession, expectError, listSessionIds, TOKEN } from "./helpers";

describe("the per-principal directory", () => {
  it("lists sessions newest first in pages with a cursor", async () => {
    const dir = env.DIRECTORY.get(env.DIRECTORY.idFromName(`list-${crypto.randomUUID()}`));
    for (let i = 0; i < 5; i++) await dir.add(`s${i}`, null, `2026-11-29T12:00:0${i}.000Z`);
    const first = await dir.list(2);
    expect(first.ids).toEqual(["s4", "s3"]);
    const second = await dir.list(2, first.next);
    expect(second.ids).toEqual(["s2", "s1"]);
    const third = await dir.list(2, second.next);
    expect(third).toEqual({ ids: ["s0"] });
  });

  it("GET /v1/sessions pages through the caller's own sessions only", async () => {
    const a = await createSession({ title: "mine-1" });
    const b = await createSession({ title: "mine-2" });
    const page = await api("/v1/sessions?limit=1");
    expect(page.status).toBe(200);
    expect(page.body.sessions).toHaveLength(1);
    expect(page.body.next).toBeTypeOf("string");
    const all = await api("/v1/sessions?limit=100");
    const ids = all.body.sessions.map((s: { id: string }) => s.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    const other = await api("/v1/sessions?limit=100", { token: "test-token-b" });
    expect(other.body.sessions.map((s: { id: string }) => s.id)).not.toContain(a.id);
  });

  it("answers a CORS preflight for an allowed origin and refuses others", async () => {
    const ok = await api("/v1/sessions", {
      method: "OPTIONS",
      token: null,
      headers: { origin: "https://console.example", "access-control-request-method": "POST" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://console.example");
    const bad = await api("/v1/sessions", {
      method: "OPTIONS",
      token: null,
      headers: { origin: "https://evil.example" },
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe("forbidden");
    const own = await api("/v1/sessions", { headers: { origin: BASE } });
    expect(own.status).toBe(200);
  });

  it("a registered id whose object was never written is 404 and lists as nothing; remove takes it back", async () => {
    // Creation registers the id first (so a written session is never unreachable); this is
    // the state a creation that died half-way leaves behind.
    const dir = env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${sha256Hex(TOKEN)}`));
    const id = env.SESSIONS.newUniqueId().toString();
    await dir.add(id, null, new Date().toISOString());
    expect(await dir.has(id)).toBe(true);
    expectError(await api(`/v1/sessions/${id}`), 404, "not_found");
    expectError(await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }), 404, "not_found");
    expect(await listSessionIds(TOKEN)).not.toContain(id);
    await dir.remove(id);
    expect(await dir.has(id)).toBe(false);
  });

  it("a created session is registered and reachable", async () => {
    const s = await createSession({ title: "registered" });
    const dir = env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${sha256Hex(TOKEN)}`));
    expect(await dir.has(s.id)).toBe(true);
    expect((await api(`/v1/sessions/${s.id}`)).status).toBe(200);
  });
});
