/**
 * The edge's side of docs/API.md §7.25–7.26 with fake bindings: a session request makes exactly one
 * call, to the session object, naming its caller; no per-principal object is on its path, with
 * or without `RATE_LIMIT_PER_MINUTE`. Only creating and listing use the directory.
 */
import { describe, expect, it } from "vitest";
import { ok } from "../../../src/contract";
import { createApp, principalOf } from "../../../src/http";

const TOKEN = "unit-token";
const ID = "ab".repeat(32);

function fakeEnv(vars: Record<string, unknown> = {}) {
  const calls: string[] = [];
  const directory = new Proxy(
    {},
    {
      get: (_t, name) => async () => {
        calls.push(`directory.${String(name)}`);
        return true;
      },
    },
  );
  const session = {
    getSession: async (caller: unknown) => {
      calls.push(`session.getSession ${JSON.stringify(caller)}`);
      return ok({ id: ID });
    },
  };
  const env = {
    API_TOKENS: TOKEN,
    SESSIONS: { idFromString: (id: string) => ({ id }), get: () => session },
    DIRECTORY: { idFromName: (n: string) => n, get: () => directory },
    ...vars,
  } as unknown as Env;
  return { env, calls };
}

const get = (env: Env) =>
  createApp().request(`/v1/sessions/${ID}`, { headers: { authorization: `Bearer ${TOKEN}` } }, env);

describe("one RPC per session request, none to the directory", () => {
  it("without a rate limit: the session object alone, told who calls", async () => {
    const { env, calls } = fakeEnv();
    expect((await get(env)).status).toBe(200);
    expect(calls).toEqual([`session.getSession ${JSON.stringify({ principal: principalOf(TOKEN) })}`]);
  });

  it("with RATE_LIMIT_PER_MINUTE and no binding: the Worker counts it in memory; the object is not asked to", async () => {
    const { env, calls } = fakeEnv({ RATE_LIMIT_PER_MINUTE: "30" });
    expect((await get(env)).status).toBe(200);
    expect(calls).toEqual([`session.getSession ${JSON.stringify({ principal: principalOf(TOKEN) })}`]);
  });

  it("with the rate-limiting binding: the binding counts it, keyed by principal; the object is not asked to", async () => {
    const keys: string[] = [];
    const { env, calls } = fakeEnv({
      RATE_LIMIT_PER_MINUTE: "30",
      RATE_LIMITER: {
        limit: async ({ key }: { key: string }) => {
          keys.push(key);
          return { success: true };
        },
      },
    });
    expect((await get(env)).status).toBe(200);
    expect(keys).toEqual([principalOf(TOKEN)]);
    expect(calls).toEqual([`session.getSession ${JSON.stringify({ principal: principalOf(TOKEN) })}`]);
  });

  it("an id the namespace did not mint is 404 with no call at all", async () => {
    const { env, calls } = fakeEnv();
    (env as unknown as { SESSIONS: { idFromString: () => never } }).SESSIONS.idFromString = () => {
      throw new TypeError("Invalid Durable Object ID");
    };
    const res = await get(env);
    expect(res.status).toBe(404);
    expect(calls).toEqual([]);
  });
});

describe("RATE_LIMIT_PER_MINUTE without the binding counts per principal, not per session", () => {
  it("11 sessions at a limit of 10: the 11th request is 429 before any object is asked; another principal passes", async () => {
    const [a, b] = [`rate-a-${crypto.randomUUID()}`, `rate-b-${crypto.randomUUID()}`];
    const { env, calls } = fakeEnv({ API_TOKENS: `${a},${b}`, RATE_LIMIT_PER_MINUTE: "10" });
    const app = createApp();
    const get = (token: string, i: number) =>
      app.request(
        `/v1/sessions/${i.toString(16).padStart(64, "0")}`,
        { headers: { authorization: `Bearer ${token}` } },
        env,
      );
    for (let i = 0; i < 10; i++) expect((await get(a, i)).status).toBe(200);
    const refused = await get(a, 10);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect(calls).toHaveLength(10);
    expect((await get(b, 10)).status).toBe(200);
    expect(calls).toHaveLength(11);
  });
});
