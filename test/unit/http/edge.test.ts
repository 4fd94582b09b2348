import { describe, expect, it } from "vitest";
import { ApiError, errorBody, errorFrame, ok, toErrorBody } from "../../../src/contract";
import { createApp, DRAIN_BYTES, drainBody } from "../../../src/http";
import { createRegistered } from "../../../src/http/create-session";

const TOKEN = "unit-token";
const env = { API_TOKENS: TOKEN } as unknown as Env;

/** A body stream that sends a first chunk, then fails like a connection reset mid-body. */
function brokenBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new Error("connection reset mid-body"));
      sent = true;
      controller.enqueue(new TextEncoder().encode('{"title":"ha'));
    },
  });
}

describe("the edge with no Worker around it", () => {
  it("an unreadable body is 400 bad_request, not 500 (docs/API.md §7.1)", async () => {
    const app = createApp();
    const res = await app.request(
      "/v1/sessions",
      {
        method: "POST",
        body: brokenBody(),
        headers: { authorization: `Bearer ${TOKEN}` },
        duplex: "half",
      } as RequestInit,
      env,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(errorBody("bad_request", "body could not be read"));
  });
});

describe("check order of docs/API.md §7.1 (503, 401, 403, 429, 413, 404 route, 405)", () => {
  const big = "x".repeat(1_100_000);
  const limited = (allow: boolean) =>
    ({
      API_TOKENS: TOKEN,
      RATE_LIMIT_PER_MINUTE: "1",
      RATE_LIMITER: { limit: async () => ({ success: allow }) },
    }) as unknown as Env;
  const call = async (path: string, init: RequestInit, e: Env) => {
    const res = await createApp().request(path, init, e);
    return [res.status, ((await res.json()) as { error: { code: string } }).error.code];
  };
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const evil = { origin: "https://evil.example" };

  it.each<[string, string, RequestInit, boolean, [number, string]]>([
    [
      "no token, bad origin, rate limited, too large",
      "/v1/sessions",
      { method: "POST", body: big, headers: evil },
      false,
      [401, "unauthorized"],
    ],
    [
      "bad origin, rate limited, too large",
      "/v1/sessions",
      { method: "POST", body: big, headers: { ...bearer, ...evil } },
      false,
      [403, "forbidden"],
    ],
    [
      "rate limited, too large, unknown route",
      "/v1/nothing",
      { method: "POST", body: big, headers: bearer },
      false,
      [429, "rate_limited"],
    ],
    [
      "too large, unknown route",
      "/v1/nothing",
      { method: "POST", body: big, headers: bearer },
      true,
      [413, "payload_too_large"],
    ],
    ["unknown route", "/v1/nothing", { method: "POST", body: "{", headers: bearer }, true, [404, "not_found"]],
    [
      "wrong method, bad JSON",
      "/v1/sessions",
      { method: "PUT", body: "{", headers: bearer },
      true,
      [405, "method_not_allowed"],
    ],
  ])("%s → %j", async (_name, path, init, allow, expected) => {
    expect(await call(path, init, limited(allow))).toEqual(expected);
  });

  it("503 comes before everything", async () => {
    expect(await call("/v1/nothing", { method: "POST", body: big, headers: evil }, {} as Env)).toEqual([
      503,
      "not_configured",
    ]);
  });
});

describe("one error builder (HTTP bodies and socket frames)", () => {
  it("maps an ApiError to its status and anything else to a 500 that says nothing", () => {
    expect(toErrorBody(new ApiError("conflict", "twice"))).toEqual({
      status: 409,
      body: errorBody("conflict", "twice"),
    });
    expect(toErrorBody(new TypeError("secret detail"))).toEqual({
      status: 500,
      body: { error: { code: "internal", message: "internal error" } },
    });
    expect(errorFrame("bad_request", "frame is not JSON", "c1")).toEqual({
      type: "error",
      id: "c1",
      error: { code: "bad_request", message: "frame is not JSON" },
    });
    expect(errorFrame("bad_request", "x")).not.toHaveProperty("id");
  });
});

describe("createRegistered: a session is never unreachable", () => {
  const steps = () => {
    const calls: string[] = [];
    return {
      calls,
      register: async () => void calls.push("register"),
      unregister: async () => void calls.push("unregister"),
    };
  };

  it("registers before the object is written", async () => {
    const s = steps();
    const value = await createRegistered({
      ...s,
      create: async () => {
        s.calls.push("create");
        return ok("session");
      },
    });
    expect(value).toBe("session");
    expect(s.calls).toEqual(["register", "create"]);
  });

  it("a refused creation takes the registration back", async () => {
    const s = steps();
    const attempt = createRegistered({
      ...s,
      create: async () => ({ ok: false as const, error: { code: "bad_request" as const, message: "no" } }),
    });
    await expect(attempt).rejects.toMatchObject({ code: "bad_request", message: "no" });
    expect(s.calls).toEqual(["register", "unregister"]);
  });

  it("a failed registration writes no object", async () => {
    let created = false;
    const attempt = createRegistered({
      register: async () => {
        throw new Error("directory unavailable");
      },
      create: async () => {
        created = true;
        return ok("session");
      },
      unregister: async () => {},
    });
    await expect(attempt).rejects.toThrow("directory unavailable");
    expect(created).toBe(false);
  });

  it("a creation whose outcome is unknown keeps the registration (the object may have been written)", async () => {
    const s = steps();
    const attempt = createRegistered({
      ...s,
      create: async () => {
        throw new Error("network lost");
      },
    });
    await expect(attempt).rejects.toThrow("network lost");
    expect(s.calls).toEqual(["register"]);
  });
});

describe("drainBody (docs/API.md §7.2)", () => {
  /** A body of `total` bytes in 64 KiB chunks that counts what was pulled and whether it was cancelled. */
  function countedBody(total: number) {
    const seen = { pulled: 0, cancelled: false };
    const chunk = new Uint8Array(64 * 1024);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (seen.pulled >= total) return controller.close();
        seen.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    const req = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    return { req, seen };
  }

  it("reads a body under the cap to its end", async () => {
    const { req, seen } = countedBody(2 * 1024 * 1024);
    await drainBody(req);
    expect(seen.pulled).toBe(2 * 1024 * 1024);
    expect(seen.cancelled).toBe(false);
  });

  it("stops a little past 8 MiB and cancels the rest", async () => {
    const { req, seen } = countedBody(64 * 1024 * 1024);
    await drainBody(req);
    expect(seen.pulled).toBeGreaterThan(DRAIN_BYTES);
    expect(seen.pulled).toBeLessThan(DRAIN_BYTES + 512 * 1024);
    expect(seen.cancelled).toBe(true);
  });

  it("leaves a body that was already read alone", async () => {
    const { req } = countedBody(1024);
    await req.arrayBuffer();
    await expect(drainBody(req)).resolves.toBeUndefined();
  });
});
