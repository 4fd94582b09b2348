/**
 * Jurisdiction and placement (docs/API.md §2, §7.24): what local workerd can show. Where the object
 * really runs is visible only in production (README "What only production shows").
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, createSession, expectError, listSessionIds, OTHER_TOKEN } from "./helpers";

describe("Session.placement, read from seq 1", () => {
  it("is { locationHint: null, jurisdiction: null } by default", async () => {
    const s = await api("/v1/sessions", { method: "POST", json: {} });
    expect(s.body.placement).toEqual({ locationHint: null, jurisdiction: null });
  });

  it("reports the location hint it was created with, on every read and in the list", async () => {
    const s = await createSession({ locationHint: "weur" });
    expect((await api(`/v1/sessions/${s.id}`)).body.placement).toEqual({ locationHint: "weur", jurisdiction: null });
    const listed = (await api("/v1/sessions?limit=100")).body.sessions.find((x: { id: string }) => x.id === s.id);
    expect(listed.placement).toEqual({ locationHint: "weur", jurisdiction: null });
    const first = (await api(`/v1/sessions/${s.id}/events?limit=1`)).body.events[0];
    expect(first.actions.stateDelta.session.options.locationHint).toBe("weur");
  });

  it.each(["eu", "fedramp", "us"] as const)(
    "jurisdiction %s: created there, reported, and reachable by its id",
    async (j) => {
      const r = await api("/v1/sessions", { method: "POST", json: { jurisdiction: j, locationHint: "enam" } });
      expect(r.status).toBe(201);
      // With a jurisdiction the hint is recorded but ignored (§7.24).
      expect(r.body.placement).toEqual({ locationHint: "enam", jurisdiction: j });
      const id = r.body.id as string;
      expect(env.SESSIONS.idFromString(id).jurisdiction ?? j).toBe(j);
      expect((await api(`/v1/sessions/${id}`)).body.placement.jurisdiction).toBe(j);
      expect((await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } })).status).toBe(202);
      expect(await listSessionIds()).toContain(id);
      expectError(await api(`/v1/sessions/${id}`, { token: OTHER_TOKEN }), 404, "not_found");
    },
  );
});

describe("bad placement input is 400 and creates nothing", () => {
  it.each([
    [{ jurisdiction: "US" }, "jurisdiction"],
    [{ jurisdiction: "EU" }, "jurisdiction"],
    [{ jurisdiction: "fedramp-high" }, "jurisdiction"],
    [{ jurisdiction: "" }, "jurisdiction"],
    [{ jurisdiction: null }, "jurisdiction"],
    [{ locationHint: "mars" }, "locationHint"],
    [{ locationHint: "apac-ne" }, "locationHint"],
    [{ locationHint: "WEUR" }, "locationHint"],
    [{ locationHint: 3 }, "locationHint"],
  ])("%j", async (body, field) => {
    const before = await listSessionIds();
    const r = await api("/v1/sessions", { method: "POST", json: body });
    expectError(r, 400, "bad_request");
    expect(r.body.error.message).toContain(field);
    expect(await listSessionIds()).toEqual(before);
  });
});
