/**
 * `RATE_LIMIT_PER_MINUTE` without the rate-limiting binding (docs/API.md#authentication-and-errors):
 * counted per principal, not per session, over every request that passed auth (refused ones and
 * edge-cache hits too) and every WebSocket frame; a 429 carries CORS and appends nothing.
 *
 * The Worker runs here as `createApp()` with the test's own tokens and limit over the real
 * bindings, so no other test's requests count against these principals.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http";
import { BASE, expectError } from "./helpers";

const ORIGIN = "https://console.example";
const app = createApp();

/** Fresh principals for one test, an env without a limit (to set up) and one with it. */
function principals(limit: number, ...names: string[]) {
  const tokens = names.map((n) => `rate-${n}-${crypto.randomUUID()}`);
  const API_TOKENS = tokens.join(",");
  return {
    tokens,
    open: { ...env, API_TOKENS } as Env,
    limited: { ...env, API_TOKENS, RATE_LIMIT_PER_MINUTE: String(limit) } as Env,
  };
}

async function call(
  e: Env,
  token: string,
  path: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
) {
  const headers = new Headers({ authorization: `Bearer ${token}`, ...init.headers });
  const body = init.json === undefined ? undefined : JSON.stringify(init.json);
  const res = await app.fetch(new Request(`${BASE}${path}`, { method: init.method ?? "GET", headers, body }), e);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function create(e: Env, token: string): Promise<string> {
  const r = await call(e, token, "/v1/sessions", { method: "POST", json: {} });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function highWater(e: Env, token: string, id: string): Promise<number> {
  const r = await call(e, token, `/v1/sessions/${id}`);
  expect(r.status).toBe(200);
  return r.body.highWater as number;
}

describe("one principal's requests are counted together, whatever session they reach", () => {
  it("11 sessions at a limit of 10: the 11th request of the minute is 429 with CORS and appends nothing; another principal is not affected", async () => {
    const { tokens, open, limited } = principals(10, "a", "b");
    const [a, b] = tokens as [string, string];
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push(await create(open, a));
    const bSession = await create(open, b);
    const before = await highWater(open, a, ids[10]!);

    for (const id of ids.slice(0, 10)) expect((await call(limited, a, `/v1/sessions/${id}`)).status).toBe(200);
    const refused = await call(limited, a, `/v1/sessions/${ids[10]}/messages`, {
      method: "POST",
      json: { text: "one too many" },
      headers: { origin: ORIGIN },
    });
    expectError(refused, 429, "rate_limited");
    expect(refused.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(await highWater(open, a, ids[10]!)).toBe(before);
    // Still refused on every other session of that principal, and on the collection routes.
    expectError(await call(limited, a, `/v1/sessions/${ids[0]}`), 429, "rate_limited");
    expectError(await call(limited, a, "/v1/sessions"), 429, "rate_limited");

    expect((await call(limited, b, `/v1/sessions/${bSession}`)).status).toBe(200);
  });

  it("refused requests and edge-cache hits count too", async () => {
    const { tokens, open, limited } = principals(5, "c");
    const [c] = tokens as [string];
    const id = await create(open, c);
    for (let i = 0; i < 3; i++)
      expect((await call(open, c, `/v1/sessions/${id}`, { method: "PATCH", json: { title: `t${i}` } })).status).toBe(
        200,
      );
    const page = `/v1/sessions/${id}/events?after=0&limit=2`;
    expect((await call(open, c, page)).status).toBe(200);
    const before = await highWater(open, c, id);

    expectError(await call(limited, c, "/v1/nothing"), 404, "not_found");
    expectError(await call(limited, c, `/v1/sessions/${id}/events?limit=0`), 400, "bad_request");
    expectError(await call(limited, c, `/v1/sessions/${env.SESSIONS.newUniqueId()}`), 404, "not_found");
    const hit = await call(limited, c, page);
    expect(hit.status).toBe(200);
    expect(hit.headers.get("x-hw-edge-cache")).toBe("hit");
    expectError(
      await call(limited, c, `/v1/sessions/${id}`, { method: "PATCH", json: { title: 7 } }),
      400,
      "bad_request",
    );
    // Five requests so far, each refused or answered without the object: the sixth is over.
    expectError(
      await call(limited, c, `/v1/sessions/${id}`, { method: "PATCH", json: { title: "x" } }),
      429,
      "rate_limited",
    );
    expect(await highWater(open, c, id)).toBe(before);
  });
});

describe("WebSocket frames count against the same limit", () => {
  it("past the limit a frame gets a rate_limited error frame and changes nothing", async () => {
    const { tokens, open, limited } = principals(4, "d");
    const [d] = tokens as [string];
    const id = await create(open, d);
    const before = await highWater(open, d, id);
    const res = await app.fetch(
      new Request(`${BASE}/v1/sessions/${id}/ws`, { headers: { upgrade: "websocket", authorization: `Bearer ${d}` } }),
      limited,
    );
    const ws = res.webSocket!;
    expect(ws).toBeTruthy();
    const frames: { type: string; id?: string }[] = [];
    ws.accept();
    ws.addEventListener("message", (m: MessageEvent) => {
      frames.push(JSON.parse(m.data as string));
    });
    const answerTo = async (id: string) => {
      for (;;) {
        const f = frames.find((x) => x.id === id);
        if (f) return f;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    // The upgrade was request 1; two stops (no turn open: nothing appended) are 2–3, and a
    // malformed frame is 4 (its answer has no id to wait for, so a stop follows it).
    for (const n of ["1", "2"]) {
      ws.send(JSON.stringify({ type: "stop", id: n }));
      expect((await answerTo(n)).type).toBe("ack");
    }
    ws.send(JSON.stringify({ type: "dance" }));
    ws.send(JSON.stringify({ type: "message", id: "4", text: "over the limit" }));
    const over = await answerTo("4");
    expect(over).toMatchObject({ type: "error", id: "4", error: { code: "rate_limited" } });
    expect(
      frames.filter((f) => f.type === "error").map((f) => (f as { error?: { code: string } }).error?.code),
    ).toEqual(["bad_request", "rate_limited"]);
    expect(await highWater(open, d, id)).toBe(before);
    // HTTP from the same principal is over the limit as well.
    expectError(await call(limited, d, `/v1/sessions/${id}`), 429, "rate_limited");
    ws.close(1000, "done");
  });
});
