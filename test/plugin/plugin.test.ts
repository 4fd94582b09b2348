/**
 * A feature is one object handed to `createHighwater({ features: [...FEATURES, fixture] })`
 * (docs/design.md#plugs): its tool is shown and run, its table follows the log, its due time
 * arms the object's alarm, and its route reaches its object operation, with no edit under src/.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, createSession, OTHER_TOKEN } from "../do/helpers";
import { STAMP_DUE_AT } from "./fixture";

/** Runs the object's slices until the turn closed (the fixture's far due time keeps an alarm set). */
async function runTurn(id: string) {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
  for (let i = 0; i < 100; i++) {
    const s = (await api(`/v1/sessions/${id}`)).body;
    if (!s.openTurn) return s;
    await runDurableObjectAlarm(stub);
  }
  throw new Error("the turn did not close");
}

describe("a feature mounted by the list alone", () => {
  it("its tool runs, its table follows the log, its due time arms the alarm, its route calls its operation", async () => {
    const { id } = await createSession({ model: { provider: "demo" } });
    expect((await api(`/v1/sessions/${id}/stamps`)).body).toEqual({ stamps: [] });
    const tools = (await api("/v1/tools")).body.tools.map((t: { name: string }) => t.name);
    expect(tools).toContain("fixture_stamp");

    const posted = await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text: "use fixture_stamp" } });
    expect(posted.status).toBe(202);
    const closed = await runTurn(id);
    expect(closed.status).toBe("idle");

    const events = (await api(`/v1/sessions/${id}/events?limit=1000`)).body.events as {
      seq: number;
      content?: { type: string; name?: string; status?: string };
    }[];
    const response = events.find((e) => e.content?.type === "functionResponse")!;
    expect(response.content).toMatchObject({ name: "fixture_stamp", status: "ok" });

    const listed = await api(`/v1/sessions/${id}/stamps`);
    expect(listed.status).toBe(200);
    expect(listed.body.stamps).toEqual([{ seq: response.seq, label: expect.any(String) }]);
    // Another principal's call is the same 404 as for any session route.
    expect((await api(`/v1/sessions/${id}/stamps`, { token: OTHER_TOKEN })).status).toBe(404);

    // Nothing else is due once the turn closed: the alarm is the stamp's.
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
    const alarm = await runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
    expect(alarm).toBe(STAMP_DUE_AT);
  });

  it("an operation the features do not define is not_found", async () => {
    const { id } = await createSession({ model: { provider: "demo" } });
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
    const caller = { principal: await principalOf("test-token-a") };
    const result = (await stub.call(caller, "stamps", "missing", {})) as { ok: boolean; error?: { code: string } };
    expect(result).toMatchObject({ ok: false, error: { code: "not_found" } });
  });
});

async function principalOf(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
