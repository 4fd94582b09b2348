/**
 * How the edge places a new session (docs/API.md §2, §7.24) with fake bindings, which is what
 * production does and local workerd cannot: a jurisdiction's subnamespace mints the id, and a
 * location hint is passed only without a jurisdiction.
 */
import { describe, expect, it } from "vitest";
import { ok } from "../../../src/contract";
import { createApp } from "../../../src/http";

const TOKEN = "unit-token";

function fakeEnv(opts: { jurisdictions: boolean; simulate?: boolean }) {
  const calls: unknown[] = [];
  const stub = {
    create: async (_caller: unknown, input: { options: unknown }) => ok({ id: "x", options: input.options }),
  };
  const namespace = (jurisdiction: string | null) => ({
    newUniqueId: () => {
      calls.push(["newUniqueId", jurisdiction]);
      return { toString: () => `id-${jurisdiction ?? "default"}` };
    },
    get: (_id: unknown, getOptions?: unknown) => {
      calls.push(["get", jurisdiction, getOptions ?? null]);
      return stub;
    },
    jurisdiction: (j: string) => {
      calls.push(["jurisdiction", j]);
      if (!opts.jurisdictions) throw new Error("Jurisdiction restrictions are not implemented in workerd.");
      return namespace(j);
    },
  });
  const directory = {
    add: async () => calls.push(["directory.add"]),
    remove: async () => calls.push(["directory.remove"]),
  };
  const env = {
    API_TOKENS: TOKEN,
    SESSIONS: namespace(null),
    DIRECTORY: { idFromName: (n: string) => n, get: () => directory },
    ...(opts.simulate ? { HW_SIMULATE_JURISDICTIONS: "1" } : {}),
  } as unknown as Env;
  return { env, calls };
}

const create = (env: Env, body: unknown) =>
  createApp().request(
    "/v1/sessions",
    { method: "POST", body: JSON.stringify(body), headers: { authorization: `Bearer ${TOKEN}` } },
    env,
  );

describe("placing a new session", () => {
  it("a jurisdiction mints the id in that subnamespace and passes no location hint", async () => {
    const { env, calls } = fakeEnv({ jurisdictions: true });
    expect((await create(env, { jurisdiction: "eu", locationHint: "weur" })).status).toBe(201);
    expect(calls).toEqual([["jurisdiction", "eu"], ["newUniqueId", "eu"], ["get", "eu", null], ["directory.add"]]);
  });

  it("Cloudflare's `us` jurisdiction (2026) is accepted and minted in its subnamespace", async () => {
    const { env, calls } = fakeEnv({ jurisdictions: true });
    expect((await create(env, { jurisdiction: "us" })).status).toBe(201);
    expect(calls).toEqual([["jurisdiction", "us"], ["newUniqueId", "us"], ["get", "us", null], ["directory.add"]]);
  });

  it("a location hint alone goes to get() on the default namespace", async () => {
    const { env, calls } = fakeEnv({ jurisdictions: true });
    expect((await create(env, { locationHint: "apac" })).status).toBe(201);
    expect(calls).toEqual([["newUniqueId", null], ["get", null, { locationHint: "apac" }], ["directory.add"]]);
  });

  it("where the runtime has no jurisdictions, asking for one is 400 and registers nothing", async () => {
    const { env, calls } = fakeEnv({ jurisdictions: false });
    const res = await create(env, { jurisdiction: "fedramp" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^jurisdiction: fedramp/);
    expect(calls).toEqual([["jurisdiction", "fedramp"]]);
  });

  it.each([{ jurisdiction: "US" }, { jurisdiction: "fedramp-high" }, { locationHint: "apac-se" }])(
    "%j is 400 before any id is minted",
    async (body) => {
      const { env, calls } = fakeEnv({ jurisdictions: true });
      expect((await create(env, body)).status).toBe(400);
      expect(calls).toEqual([]);
    },
  );
});
