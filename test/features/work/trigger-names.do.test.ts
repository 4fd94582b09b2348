import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/log";
import { api, createSession, expectError, highWaterOf, OTHER_TOKEN, TOKEN } from "../../do/helpers";

/**
 * Trigger names and schedules that could never be undone or never fire
 * (docs/API.md#work-beyond-one-turn): a name never starts with a dot, any trigger that exists
 * can be deleted (also one an older Worker let be named `.` or `..`), and a schedule that
 * matches no date is 400. Every refusal appends nothing.
 */

const post = (path: string, json: unknown, token?: string) =>
  api(path, { method: "POST", json, ...(token ? { token } : {}) });
const del = (path: string, token?: string) => api(path, { method: "DELETE", ...(token ? { token } : {}) });
const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));
const namesOf = async (id: string) =>
  ((await api(`/v1/sessions/${id}/triggers`)).body.triggers as { name: string }[]).map((t) => t.name);

describe("trigger names", () => {
  it("a name starting with a dot is 400 and appends nothing; dots elsewhere are fine", async () => {
    const s = await createSession({ tools: [] });
    const path = `/v1/sessions/${s.id}/triggers`;
    const hw = await highWaterOf(s.id);
    for (const name of [".", "..", ".x", "...", ".hidden-job"])
      expectError(await post(path, { name, text: "x", schedule: { everySeconds: 60 } }), 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(hw);
    expect(await namesOf(s.id)).toEqual([]);
    for (const name of ["x.", "a.b", "_x", "-x", "9", "n".repeat(64)])
      expect((await post(path, { name, text: "x", schedule: { everySeconds: 60 } })).status).toBe(201);
  });

  it("a trigger an older Worker named `.`, `..` or `.x` can be deleted with ?name=; it fires no more", async () => {
    const s = await createSession({ tools: [] });
    const caller = { principal: sha256Hex(TOKEN) };
    // What older edges let through: the object itself takes any stored name.
    for (const name of [".", "..", ".x"]) {
      const r = await stubOf(s.id).call(caller, "work", "createTrigger", {
        name,
        text: "tick",
        schedule: { everySeconds: 1 },
      });
      expect(r.ok).toBe(true);
    }
    expect(await namesOf(s.id)).toEqual([".", "..", ".x"]);
    const path = `/v1/sessions/${s.id}/triggers`;
    const hw = await highWaterOf(s.id);

    // In a path, URL normalisation removes `.` and `..` (also percent-encoded) before routing.
    expectError(await del(`${path}/.`), 404, "not_found");
    expectError(await del(`${path}/%2e%2e`), 404, "not_found");
    // The query names a trigger literally; unknown, empty and foreign are 404; none appends.
    expectError(await del(`${path}?name=nope`), 404, "not_found");
    expectError(await del(path), 404, "not_found");
    expectError(await del(`${path}?name=.`, OTHER_TOKEN), 404, "not_found");
    expectError(await api(`${path}?name=.`, { method: "DELETE", body: "{not json" }), 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(hw);

    expect((await del(`${path}?name=.`)).status).toBe(204);
    expect((await del(`${path}?name=%2E%2E`)).status).toBe(204);
    expect((await del(`${path}/.x`)).status).toBe(204);
    expect(await namesOf(s.id)).toEqual([]);
    expectError(await del(`${path}?name=.`), 404, "not_found");
    // Nothing is left to fire: with no turn open, the object holds no alarm.
    expect(await runInDurableObject(stubOf(s.id), (_o, state) => state.storage.getAlarm())).toBeNull();
  });
});

describe("schedules that can never fire", () => {
  it("a cron that matches no date is 400 and appends nothing; a rare one is accepted", async () => {
    const s = await createSession({ tools: [] });
    const path = `/v1/sessions/${s.id}/triggers`;
    const hw = await highWaterOf(s.id);
    for (const cron of ["0 0 31 2 *", "0 0 30 2 *", "0 0 31 4 *", "0 0 31 11 *"]) {
      const r = await post(path, { name: "never", text: "x", schedule: { cron } });
      expectError(r, 400, "bad_request");
      expect(r.body.error.message).toMatch(/never fire/);
    }
    expectError(
      await post(path, { name: "past", text: "x", schedule: { at: new Date(Date.now() - 1000).toISOString() } }),
      400,
      "bad_request",
    );
    expect(await highWaterOf(s.id)).toBe(hw);
    expect(await namesOf(s.id)).toEqual([]);
    const leap = await post(path, { name: "leap-day", text: "x", schedule: { cron: "0 0 29 2 *" } });
    expect(leap.status).toBe(201);
    expect(leap.body.nextAt).toMatch(/-02-29T00:00:00/);
  });
});
