import { describe, expect, it } from "vitest";
import { makeHttpFetchTool, makePlaceholder, serializeToolResponse, type ToolDefinition } from "../../src/tools";
import { call, err, ok, withSql } from "./tools-support";

type FakeRoute = (req: Request) => Response | Promise<Response>;

function fakeFetch(routes: Record<string, FakeRoute>, seen: Request[] = []): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(req);
    const route = routes[req.url];
    if (!route) throw new TypeError(`connection refused: ${req.url}`);
    return route(req);
  }) as typeof fetch;
}

const redirect =
  (to: string, status = 302) =>
  () =>
    new Response(null, { status, headers: { location: to } });

describe("http_fetch", () => {
  it("returns any HTTP answer as ok", async () => {
    const f = fakeFetch({
      "https://allowed.test/x": () => new Response("not here", { status: 404, headers: { "x-a": "1" } }),
    });
    await withSql(async (ctx) => {
      const r = ok(await call(ctx, "http_fetch", { url: "https://allowed.test/x" }));
      expect(r).toMatchObject({ status: 404, body: "not here", truncated: false, url: "https://allowed.test/x" });
      expect((r.headers as Record<string, string>)["x-a"]).toBe("1");
    }, f);
  });

  it("checks the URL and every redirect hop against the allowlist", async () => {
    const seen: Request[] = [];
    const f = fakeFetch(
      {
        "https://allowed.test/start": redirect("https://api.ok.test:8443/next"),
        "https://api.ok.test:8443/next": redirect("/final", 307),
        "https://api.ok.test:8443/final": () => new Response("done"),
        "https://allowed.test/escape": redirect("https://evil.test/steal"),
        "https://evil.test/steal": () => new Response("should never be fetched"),
        "https://allowed.test/loop": redirect("https://allowed.test/loop"),
        "https://allowed.test/to-apex": redirect("https://ok.test/"),
      },
      seen,
    );
    await withSql(async (ctx) => {
      expect(ok(await call(ctx, "http_fetch", { url: "https://allowed.test/start" }))).toMatchObject({
        status: 200,
        body: "done",
        url: "https://api.ok.test:8443/final",
      });
      expect(seen.every((r) => r.redirect === "manual")).toBe(true);

      const refused = err(await call(ctx, "http_fetch", { url: "https://allowed.test/escape" }));
      expect(refused.code).toBe("host_not_allowed");
      expect(refused.message).toMatch(/evil\.test.*redirect 1/);
      expect(seen.some((r) => r.url.startsWith("https://evil.test"))).toBe(false);

      expect(err(await call(ctx, "http_fetch", { url: "https://allowed.test/to-apex" })).code).toBe("host_not_allowed");
      expect(err(await call(ctx, "http_fetch", { url: "https://evil.test/steal" })).code).toBe("host_not_allowed");
      expect(err(await call(ctx, "http_fetch", { url: "http://allowed.test:8080/" })).code).toBe("host_not_allowed");
      expect(err(await call(ctx, "http_fetch", { url: "ftp://allowed.test/" })).code).toBe("host_not_allowed");
      expect(err(await call(ctx, "http_fetch", { url: "not a url" })).code).toBe("bad_url");

      const before = seen.length;
      expect(err(await call(ctx, "http_fetch", { url: "https://allowed.test/loop" })).code).toBe("too_many_redirects");
      expect(seen.length - before).toBe(6); // the first request and 5 redirects

      expect(err(await call(ctx, "http_fetch", { url: "https://allowed.test/unrouted" }))).toMatchObject({
        code: "network_error",
        message: expect.stringMatching(/connection refused/),
      });
    }, f);
  });

  it("changes POST to GET on 303 and drops credentials across origins", async () => {
    const seen: Request[] = [];
    const f = fakeFetch(
      {
        "https://allowed.test/form": redirect("https://a.ok.test/result", 303),
        "https://a.ok.test/result": () => new Response("ok"),
        "https://allowed.test/keep": redirect("https://allowed.test/kept", 308),
        "https://allowed.test/kept": async (req) => new Response(`${req.method} ${await req.text()}`),
      },
      seen,
    );
    await withSql(async (ctx) => {
      await call(ctx, "http_fetch", {
        url: "https://allowed.test/form",
        method: "post",
        body: "a=1",
        headers: { authorization: "Bearer x", "x-keep": "y" },
      });
      expect(seen.map((r) => r.method)).toEqual(["POST", "GET"]);
      expect(seen[1]!.headers.get("authorization")).toBeNull();
      expect(seen[1]!.headers.get("x-keep")).toBe("y");
      expect(
        ok(await call(ctx, "http_fetch", { url: "https://allowed.test/keep", method: "PUT", body: "b" })).body,
      ).toBe("PUT b");
    }, f);
  });

  it("caps the body at a UTF-8 boundary and marks it truncated", async () => {
    const tool = makeHttpFetchTool({ maxBodyBytes: 10 }) as ToolDefinition<unknown>;
    const f = fakeFetch({
      // "aaaaaaaaa" is 9 bytes, "é" would straddle the 10-byte cap.
      "https://allowed.test/big": () => new Response("aaaaaaaaaébbbbbbbbbbbbbbbbbbbbbbbb"),
      "https://allowed.test/exact": () => new Response("0123456789"),
      "https://allowed.test/stream": () =>
        new Response(
          new ReadableStream({
            pull(c) {
              c.enqueue(new TextEncoder().encode("xyz"));
            },
          }),
        ),
    });
    await withSql(async (ctx) => {
      expect(ok(await call(ctx, "http_fetch", { url: "https://allowed.test/big" }, tool))).toMatchObject({
        body: "aaaaaaaaa",
        truncated: true,
      });
      expect(ok(await call(ctx, "http_fetch", { url: "https://allowed.test/exact" }, tool))).toMatchObject({
        body: "0123456789",
        truncated: false,
      });
      // An endless body stops at the cap.
      expect(ok(await call(ctx, "http_fetch", { url: "https://allowed.test/stream" }, tool))).toMatchObject({
        body: "xyzxyzxyzx",
        truncated: true,
      });
    }, f);
  });

  it("times out, and stops when the call's signal aborts", async () => {
    const tool = makeHttpFetchTool({ timeoutMs: 50 }) as ToolDefinition<unknown>;
    let sawAbort = false;
    const hang: typeof fetch = (_input, init) =>
      new Promise((_, reject) => {
        init?.signal?.addEventListener("abort", () => {
          sawAbort = true;
          reject(new Error("aborted"));
        });
      });
    await withSql(async (ctx) => {
      const r = err(await call(ctx, "http_fetch", { url: "https://allowed.test/slow" }, tool));
      expect(r.code).toBe("timeout");
      expect(sawAbort).toBe(true);
    }, hang);

    // A fetch that ignores its signal still cannot hold the call past the timeout.
    const deaf: typeof fetch = () => new Promise(() => {});
    await withSql(async (ctx) => {
      expect(err(await call(ctx, "http_fetch", { url: "https://allowed.test/deaf" }, tool)).code).toBe("timeout");
    }, deaf);

    const stop = new AbortController();
    await withSql(
      async (ctx) => {
        const pending = call(ctx, "http_fetch", { url: "https://allowed.test/slow" });
        stop.abort(new Error("stopped"));
        expect(err(await pending).code).toBe("aborted");
      },
      hang,
      stop.signal,
    );
  });
});

describe("offload placeholder", () => {
  const meta = { sha256: "f".repeat(64), bytes: 9999 };
  it("carries tool, size, digest, ref and a preview of at most 512 bytes cut on a character", () => {
    // 511 ASCII bytes then a 3-byte character: the preview must stop before it, not split it.
    const text = `${"a".repeat(511)}✓${"b".repeat(100)}`;
    const p = makePlaceholder("read_file", text, meta);
    expect(p).toEqual({
      offloaded: true,
      tool: "read_file",
      bytes: 9999,
      sha256: meta.sha256,
      ref: `archive://${meta.sha256}`,
      preview: "a".repeat(511),
    });
    // Astral characters (4 bytes, a surrogate pair) are never split either.
    const emoji = makePlaceholder("t", "😀".repeat(200), meta).preview;
    expect(emoji).toBe("😀".repeat(128));
    expect(makePlaceholder("t", "short", meta).preview).toBe("short");
  });

  it("serializes strings as-is and everything else as canonical JSON", () => {
    expect(serializeToolResponse("plain text")).toBe("plain text");
    expect(serializeToolResponse({ b: 1, a: [null, { d: 2, c: undefined }] })).toBe('{"a":[null,{"d":2}],"b":1}');
  });
});
