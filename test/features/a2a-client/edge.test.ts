/**
 * The A2A client at the edge, with no Worker around it (docs/API.md#a2a-agents): an invalid
 * `A2A_AGENTS` refuses every `/v1` request with 503 naming the entry (never a value); the notify
 * route is public but refuses a malformed token with 401 and any method but POST with 405.
 */
import { describe, expect, it } from "vitest";
import { FEATURES } from "../../../src/features";
import { createApp } from "../../../src/http";

const TOKEN = "unit-token";
const SECRETISH = "sk-live-DO-NOT-ECHO-123456";
const bad = { API_TOKENS: TOKEN, A2A_AGENTS: JSON.stringify([{ name: "helper", url: `ftp://${SECRETISH}` }]) };
const good = { API_TOKENS: TOKEN, A2A_AGENTS: JSON.stringify([{ name: "helper", url: "https://agent.example/card" }]) };

describe("A2A_AGENTS at the edge", () => {
  it("an invalid value is 503 not_configured on every /v1 request, naming the entry and never the value", async () => {
    const app = createApp(FEATURES);
    for (const [path, init] of [
      ["/v1/sessions", { method: "GET", headers: { authorization: `Bearer ${TOKEN}` } }],
      ["/v1/tools", { method: "GET", headers: { authorization: `Bearer ${TOKEN}` } }],
      [`/v1/a2a/notify/${"a".repeat(64)}.${"b".repeat(32)}`, { method: "POST", body: "{}" }],
    ] as const) {
      const res = await app.request(path, init, bad as unknown as Env);
      expect(res.status).toBe(503);
      const body = await res.text();
      expect(JSON.parse(body)).toMatchObject({ error: { code: "not_configured" } });
      expect(body).toContain("A2A_AGENTS[0].url");
      expect(body).not.toContain(SECRETISH);
    }
  });

  it("the notify route needs no bearer token but refuses a malformed one with 401", async () => {
    const app = createApp(FEATURES);
    for (const token of ["nope", `${"a".repeat(64)}.short`, `${"A".repeat(64)}.${"b".repeat(32)}`]) {
      const res = await app.request(`/v1/a2a/notify/${token}`, { method: "POST", body: "{}" }, good as unknown as Env);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "unauthorized" } });
    }
    const get = await app.request(`/v1/a2a/notify/x`, { method: "GET" }, good as unknown as Env);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("a header secret shorter than 8 characters is refused, naming it", async () => {
    const app = createApp(FEATURES);
    const env = {
      API_TOKENS: TOKEN,
      A2A_AGENTS: JSON.stringify([
        { name: "helper", url: "https://agent.example/card", headers: { "x-key": "{{secret:SHORT}}" } },
      ]),
      SHORT: "abc",
    };
    const res = await app.request(
      "/v1/sessions",
      { headers: { authorization: `Bearer ${TOKEN}` } },
      env as unknown as Env,
    );
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).toContain("secret SHORT is shorter than 8 characters");
    expect(body).not.toContain('"abc"');
  });

  it("the route reads at most 1 MiB (413, the session is not asked) and hands the session the token and task", async () => {
    const app = createApp(FEATURES);
    const asked: unknown[] = [];
    const SESSIONS = {
      idFromString: (id: string) => ({ id }),
      get: () => ({
        remoteNotice: async (input: unknown) => {
          asked.push(input);
          return { ok: true, value: { recorded: false } };
        },
      }),
    };
    const env = { ...good, SESSIONS } as unknown as Env;
    const token = `${"a".repeat(64)}.${"b".repeat(32)}`;
    const big = await app.request(
      `/v1/a2a/notify/${token}`,
      { method: "POST", body: "x".repeat(1024 * 1024 + 1) },
      env,
    );
    expect(big.status).toBe(413);
    expect(asked).toEqual([]);
    const body = JSON.stringify({
      statusUpdate: { taskId: "T9", contextId: "C", status: { state: "TASK_STATE_WORKING" } },
    });
    const res = await app.request(`/v1/a2a/notify/${token}`, { method: "POST", body }, env);
    expect(res.status).toBe(200);
    expect(asked).toEqual([{ token, taskId: "T9", status: { taskId: "T9", state: "working" } }]);
  });
});
