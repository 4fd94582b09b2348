/**
 * Upgrades keep every session (issue 17 item 15, docs/API.md#upgrades): a session written before
 * the owner moved into seq 1 holds no owner; its principal's directory still lists it. Its owner
 * reaches it again through every route (the object adopts the owner the directory vouches for,
 * once, outside the log); nobody else does. Slices are driven by hand.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EventStore, sha256Hex } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import { settle } from "./drive";
import { api, listSessionIds, OTHER_TOKEN, TOKEN } from "./helpers";

const MODEL = { provider: "demo", name: "demo", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** A session object as the code before the owner moved into seq 1 wrote it, listed in `token`'s directory. */
async function legacySession(token: string): Promise<string> {
  const id = env.SESSIONS.newUniqueId();
  const sessionId = id.toString();
  await runInDurableObject(env.SESSIONS.get(id), (_o, state) => {
    const sql = state.storage.sql;
    const tx = <T>(f: () => T): T => state.storage.transactionSync(f);
    tx(() => applyMigrations(sql));
    new EventStore(sql, sessionId, tx).append([
      {
        author: "runtime",
        modelVisibility: "hidden",
        actions: { stateDelta: { session: { id: sessionId, parentId: null, options: { tools: [] }, model: MODEL } } },
      },
    ]);
  });
  const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${sha256Hex(token)}`));
  await directory.add(sessionId, null, new Date().toISOString());
  return sessionId;
}

describe("a session from before the owner was in seq 1", () => {
  it("is its owner's again: read, listed, continued and verified; the log is untouched by the upgrade", async () => {
    const id = await legacySession(TOKEN);
    const got = await api(`/v1/sessions/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, highWater: 1 });
    expect(await listSessionIds()).toContain(id);
    // Adopting the owner wrote nothing to the log.
    expect((await api(`/v1/sessions/${id}/events?after=0`)).body.events).toHaveLength(1);
    const posted = await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text: "hello again" } });
    expect(posted.status).toBe(202);
    expect(await settle(id)).toMatchObject({ openTurn: false });
    const events = (await api(`/v1/sessions/${id}/events?after=0`)).body.events;
    expect(events.at(-1).actions.turnClose).toEqual({ reason: "completed" });
    expect(events.some((e: { author: string }) => e.author === "model")).toBe(true);
    expect((await api(`/v1/sessions/${id}/verify`)).body).toMatchObject({ ok: true });
  });

  it("is nobody else's, before and after its owner came back", async () => {
    const id = await legacySession(TOKEN);
    for (const path of [`/v1/sessions/${id}`, `/v1/sessions/${id}/events?after=0`])
      expect((await api(path, { token: OTHER_TOKEN })).status).toBe(404);
    expect(
      (await api(`/v1/sessions/${id}/messages`, { method: "POST", token: OTHER_TOKEN, json: { text: "x" } })).status,
    ).toBe(404);
    expect(await listSessionIds(OTHER_TOKEN)).not.toContain(id);
    expect((await api(`/v1/sessions/${id}`)).status).toBe(200);
    expect((await api(`/v1/sessions/${id}`, { token: OTHER_TOKEN })).status).toBe(404);
    expect((await api(`/v1/sessions/${id}/events?after=0`)).body.events).toHaveLength(1);
  });

  it("listed first, it is adopted by the listing", async () => {
    const id = await legacySession(TOKEN);
    const listed = await api("/v1/sessions");
    expect(listed.body.sessions.map((s: { id: string }) => s.id)).toContain(id);
    expect((await api(`/v1/sessions/${id}/transcript`)).status).toBe(200);
  });
});
