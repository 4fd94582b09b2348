/**
 * Ownership checked where the data is (docs/API.md §2, §7.1, §7.26): the owner is recorded in seq 1,
 * the session object refuses every other principal with the same 404 as an unknown id, an id
 * the namespace did not mint is 404 without touching anything, and a minted id that was never
 * written answers 404 through every route and stays unwritten.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/log";
import { api, createSession, expectError, highWaterOf, listSessionIds, OTHER_TOKEN, TOKEN } from "./helpers";

const APPROVAL = `apr_${"0".repeat(24)}`;
const SHA = "a".repeat(64);

/** Every session route, with a body that would be valid for its owner (docs/API.md §2). */
function everyRoute(id: string): { path: string; init: RequestInit & { json?: unknown } }[] {
  const base = `/v1/sessions/${id}`;
  return [
    { path: base, init: {} },
    { path: base, init: { method: "PATCH", json: { title: "mine now" } } },
    { path: `${base}/messages`, init: { method: "POST", json: { text: "hello", idempotencyKey: "k1" } } },
    { path: `${base}/stop`, init: { method: "POST" } },
    { path: `${base}/approvals/${APPROVAL}`, init: { method: "POST", json: { decision: "approve" } } },
    { path: `${base}/events?after=0&limit=10`, init: {} },
    { path: `${base}/transcript`, init: {} },
    { path: `${base}/context`, init: {} },
    { path: `${base}/verify`, init: {} },
    { path: `${base}/export`, init: {} },
    { path: `${base}/archive/${SHA}`, init: {} },
    { path: `${base}/files`, init: {} },
    { path: `${base}/files/notes.md`, init: {} },
    { path: `${base}/tickets`, init: { method: "POST" } },
    { path: `${base}/ws?after=0`, init: { headers: { upgrade: "websocket" } } },
  ];
}

/** The same routes with input that is bad for anyone: the 404 still comes first (§7.1). */
function everyRouteWithBadInput(id: string): { path: string; init: RequestInit & { json?: unknown } }[] {
  const base = `/v1/sessions/${id}`;
  return [
    { path: base, init: { method: "PATCH", json: { title: 42 } } },
    { path: `${base}/messages`, init: { method: "POST", json: { text: 7 } } },
    { path: `${base}/messages`, init: { method: "POST", json: { text: "x".repeat(300_000) } } },
    { path: `${base}/approvals/${APPROVAL}`, init: { method: "POST", json: { decision: "maybe" } } },
    { path: `${base}/events?limit=0`, init: {} },
    { path: `${base}/transcript?after=-1`, init: {} },
    { path: `${base}/archive/${SHA}?offset=x`, init: {} },
    { path: `${base}/files?limit=5000`, init: {} },
    { path: `${base}/files/a%00b`, init: {} },
    { path: `${base}/ws?after=x`, init: { headers: { upgrade: "websocket" } } },
    { path: `${base}/ws?after=0`, init: {} },
  ];
}

async function tablesOf(id: string): Promise<string[]> {
  return runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromString(id)), (_o, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master")
      .toArray()
      .map((r) => r.name),
  );
}

describe("the owner is recorded in seq 1 (docs/API.md §7.26)", () => {
  it("as sha256_hex(owner:<id>:<principal>), where principal is the sha256 of the token", async () => {
    const s = await createSession({ title: "owned" });
    const events = (await api(`/v1/sessions/${s.id}/events`)).body.events;
    expect(events[0].seq).toBe(1);
    expect(events[0].actions.stateDelta.session.owner).toBe(sha256Hex(`owner:${s.id}:${sha256Hex(TOKEN)}`));
  });
});

describe("someone else's session (docs/API.md §2, §7.1)", () => {
  it("is 404 not_found through every route, appends nothing and is not listed", async () => {
    const s = await createSession({ title: "a's" });
    for (const { path, init } of everyRoute(s.id)) {
      const r = await api(path, { ...init, token: OTHER_TOKEN });
      expectError(r, 404, "not_found");
      expect(r.body.error.message).toBe("session not found");
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
    expect(await listSessionIds(OTHER_TOKEN)).not.toContain(s.id);
    // And the owner still has it unchanged.
    expect((await api(`/v1/sessions/${s.id}`)).body.title).toBe("a's");
  });

  it("is 404 before any 400 or 413 that the input would earn", async () => {
    const s = await createSession();
    for (const { path, init } of everyRouteWithBadInput(s.id)) {
      const r = await api(path, { ...init, token: OTHER_TOKEN });
      expectError(r, 404, "not_found");
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
    // The owner gets the 400s (so the inputs really are bad).
    expectError(await api(`/v1/sessions/${s.id}/events?limit=0`), 400, "bad_request");
    expectError(await api(`/v1/sessions/${s.id}/files/a%00b`), 400, "bad_request");
  });

  it("looks the same as an unknown id: same status, code and message", async () => {
    const s = await createSession();
    const foreign = await api(`/v1/sessions/${s.id}`, { token: OTHER_TOKEN });
    const unknown = await api(`/v1/sessions/${env.SESSIONS.newUniqueId().toString()}`, { token: OTHER_TOKEN });
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body).toEqual(unknown.body);
  });
});

describe("ids that were never written, or never minted (docs/API.md §2, §7.26, docs/design.md §7)", () => {
  it("a minted id never written is 404 through every route, and its object stays unwritten", async () => {
    const id = env.SESSIONS.newUniqueId().toString();
    for (const { path, init } of [...everyRoute(id), ...everyRouteWithBadInput(id)]) {
      expectError(await api(path, init), 404, "not_found");
    }
    expect(await tablesOf(id)).toEqual([]);
    expect(await listSessionIds(TOKEN)).not.toContain(id);
  });

  it("a sibling of a real id (one hex digit changed) is 404 and creates nothing", async () => {
    const s = await createSession();
    for (const pos of [0, 31, 63]) {
      const c = s.id[pos]!;
      const sibling = `${s.id.slice(0, pos)}${c === "0" ? "1" : "0"}${s.id.slice(pos + 1)}`;
      // docs/design.md §7 re-checked: idFromString refuses it (the id carries the namespace's MAC), so no stub is made.
      expect(() => env.SESSIONS.idFromString(sibling)).toThrow();
      for (const { path, init } of everyRoute(sibling)) expectError(await api(path, init), 404, "not_found");
    }
    expect(await highWaterOf(s.id)).toBe(s.highWater);
  });

  it("an id minted by another namespace (the directory's) is 404 through every route", async () => {
    const foreign = env.DIRECTORY.newUniqueId().toString();
    expect(() => env.SESSIONS.idFromString(foreign)).toThrow();
    for (const { path, init } of everyRoute(foreign)) expectError(await api(path, init), 404, "not_found");
  });

  it("a session id from a name (idFromName) that was never created is 404 and stays unwritten", async () => {
    const id = env.SESSIONS.idFromName(`never-${crypto.randomUUID()}`).toString();
    expectError(await api(`/v1/sessions/${id}/events`), 404, "not_found");
    expect(await tablesOf(id)).toEqual([]);
  });
});

describe("the directory only creates and lists (docs/API.md §7.26)", () => {
  it("a session the directory forgot is still its owner's, and still nobody else's", async () => {
    const s = await createSession({ title: "not in the directory" });
    const dir = env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${sha256Hex(TOKEN)}`));
    await dir.remove(s.id);
    const r = await api(`/v1/sessions/${s.id}`);
    expect(r.status).toBe(200);
    expect(r.body.title).toBe("not in the directory");
    expect((await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "hi" } })).status).toBe(202);
    expectError(await api(`/v1/sessions/${s.id}`, { token: OTHER_TOKEN }), 404, "not_found");
  });

  it("a creation the object refused leaves nothing behind in the object", async () => {
    const before = await listSessionIds(TOKEN);
    const r = await api("/v1/sessions", { method: "POST", json: { model: { contextWindow: 1024 } } });
    expectError(r, 400, "bad_request");
    expect(await listSessionIds(TOKEN)).toEqual(before);
  });
});
