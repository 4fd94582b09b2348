import { describe, expect, it } from "vitest";
import { z } from "zod";
import { callIdempotencyKey } from "../../../src/runtime/drafts";
import {
  BUILTIN_TOOLS,
  buildStaticTools,
  defineTool,
  idempotencyKeyFor,
  parseToolArgs,
  type ToolContext,
  ToolError,
  thrownOutcome,
  toolSpecs,
} from "../../../src/tools";

const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id",
  input: z.object({ id: z.string() }),
  effect: "read",
  run: async (args, ctx) => ({ id: args.id, key: ctx.idempotencyKey, env: ctx.env.REGION, token: ctx.secret("TOKEN") }),
});

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionId: "s1",
    callId: "c1",
    idempotencyKey: "hw_k",
    signal: new AbortController().signal,
    sql: null as never,
    blobs: null as never,
    httpAllowedHosts: [],
    fetch: () => Promise.reject(new Error("no network")),
    env: { REGION: "eu", TOKEN: "t0k3n" },
    secret: (name) => (name === "TOKEN" ? "t0k3n" : undefined),
    ...over,
  };
}

describe("defineTool", () => {
  it("refuses a name outside [A-Za-z0-9_-]{1,64}, naming it", () => {
    for (const name of ["", "has space", "dot.name", "x".repeat(65), "ü"]) {
      expect(() => defineTool({ name, description: "", input: z.object({}), effect: "read", run: () => null })).toThrow(
        /name must match \[A-Za-z0-9_-\]\{1,64\}/,
      );
    }
    expect(defineTool({ name: "a-B_9", description: "", input: z.object({}), effect: "read", run: () => 1 }).name).toBe(
      "a-B_9",
    );
  });

  it("refuses an effect that is not read, idempotent, write or a function", () => {
    expect(() =>
      defineTool({ name: "t", description: "", input: z.object({}), effect: "readonly" as never, run: () => 1 }),
    ).toThrow(/effect must be/);
  });

  it("an effect function decides per call; one that throws or answers garbage is write", () => {
    const tool = defineTool({
      name: "send",
      description: "",
      input: z.object({ dry: z.boolean() }),
      effect: (a) => (a.dry ? "read" : "write"),
      run: () => 1,
    });
    expect(tool.declaredEffect).toBe("by-arguments");
    expect(lookup.declaredEffect).toBe("read");
    expect(tool.effect({ dry: true })).toBe("read");
    expect(tool.effect({ dry: false })).toBe("write");
    const bad = defineTool({
      name: "bad",
      description: "",
      input: z.object({}),
      effect: () => {
        throw new Error("no");
      },
      run: () => 1,
    });
    expect(bad.effect({})).toBe("write");
    const odd = defineTool({
      name: "odd",
      description: "",
      input: z.object({}),
      effect: () => "maybe" as never,
      run: () => 1,
    });
    expect(odd.effect({})).toBe("write");
    expect(lookup.effect({ id: "1" })).toBe("read");
  });

  it("the returned value is the ok response; ctx holds the key, env and secret()", async () => {
    expect(lookup.source).toBe("custom");
    expect(await lookup.run({ id: "7" }, ctx())).toEqual({
      status: "ok",
      response: { id: "7", key: "hw_k", env: "eu", token: "t0k3n" },
    });
  });

  it("arguments are validated like a built-in's and the model sees the zod schema as JSON schema", () => {
    const bad = parseToolArgs(lookup, { id: 5 });
    expect(bad.ok).toBe(false);
    const [spec] = toolSpecs([lookup]);
    expect(spec).toMatchObject({
      name: "lookup_order",
      description: "Find an order by id",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    });
  });

  it("a thrown ToolError is an error with its code; any other throw is tool_failed with its message", () => {
    const signal = new AbortController().signal;
    expect(thrownOutcome(new ToolError("not_found", "no order 7"), signal)).toEqual({
      status: "error",
      response: { code: "not_found", message: "no order 7" },
    });
    expect(thrownOutcome(new TypeError("x is undefined"), signal)).toEqual({
      status: "error",
      response: { code: "tool_failed", message: "x is undefined" },
    });
  });

  it("a stop ends a tool that ignores its signal, and the tool sees the signal aborted", async () => {
    const seen: boolean[] = [];
    const tool = defineTool({
      name: "hang",
      description: "",
      input: z.object({}),
      effect: "read",
      run: (_a, c) =>
        new Promise(() => {
          c.signal.addEventListener("abort", () => seen.push(c.signal.aborted));
        }),
    });
    const stop = new AbortController();
    const running = tool.run({}, ctx({ signal: stop.signal }));
    stop.abort(new Error("stopped"));
    await expect(running).rejects.toThrow("stopped");
    expect(seen).toEqual([true]);
  });

  it("a value JSON cannot hold fails the call", async () => {
    const tool = defineTool({ name: "big", description: "", input: z.object({}), effect: "read", run: () => 10n });
    await expect(tool.run({}, ctx())).rejects.toThrow();
  });
});

describe("names the model could confuse, inputs it cannot be shown, timeouts", () => {
  const base = { description: "", input: z.object({}), effect: "read" as const, run: () => 1 };

  it("refuses a name with __ (it could equal an MCP tool's <server>__<tool>), __proto__ included", () => {
    expect(() => defineTool({ ...base, name: "crm__find" })).toThrow(
      /defineTool\("crm__find"\): name must not contain "__"/,
    );
    expect(() => defineTool({ ...base, name: "__proto__" })).toThrow(/"__proto__"\): name must not contain "__"/);
    // A tool object made another way is checked again where the registry is built.
    const made = defineTool({ ...base, name: "crm_find" });
    expect(() => buildStaticTools([{ ...made, name: "crm__find" }])).toThrow(
      /tools\[0\] \("crm__find"\): name must not/,
    );
    expect(() => buildStaticTools([{ ...made, name: "__proto__" }])).toThrow(/"__proto__"/);
    expect(Object.keys(BUILTIN_TOOLS).filter((n) => n.includes("__"))).toEqual([]);
  });

  it.each([
    ["z.date()", z.object({ when: z.date() })],
    ["z.bigint()", z.object({ n: z.bigint() })],
  ] as [string, z.ZodType][])("refuses an input with no JSON Schema form (%s), naming the tool", (_what, input) => {
    expect(() => defineTool({ ...base, name: "when", input })).toThrow(
      /defineTool\("when"\): input has no JSON Schema form/,
    );
    const made = defineTool({ ...base, name: "when" });
    expect(() => buildStaticTools([{ ...made, input }])).toThrow(
      /tools\[0\] \("when"\): input has no JSON Schema form/,
    );
  });

  it("timeoutMs is 1000–600000 ms and becomes the call's deadline", () => {
    for (const bad of [999, 600_001, 1.5, Number.NaN, "60000"])
      expect(() => defineTool({ ...base, name: "slow", timeoutMs: bad as number })).toThrow(
        /timeoutMs must be an integer from 1000 to 600000/,
      );
    expect(defineTool({ ...base, name: "slow", timeoutMs: 1000 }).timeoutMs).toBe(1000);
    expect(defineTool({ ...base, name: "slow", timeoutMs: 600_000 }).timeoutMs).toBe(600_000);
    expect(defineTool({ ...base, name: "slow" }).timeoutMs).toBeUndefined();
  });

  it("a write call cut off by its timeout is answered interrupted (it may have happened); read and idempotent tool_timeout", () => {
    const timedOut = AbortSignal.abort(new DOMException("timed out", "TimeoutError"));
    const err = new DOMException("timed out", "TimeoutError");
    expect(thrownOutcome(err, timedOut, "write")).toEqual({
      status: "interrupted",
      response: { reason: "timeout", message: expect.stringMatching(/may or may not have happened/) },
    });
    expect(thrownOutcome(err, timedOut, "read").response).toMatchObject({ code: "tool_timeout" });
    expect(thrownOutcome(err, timedOut, "idempotent").response).toMatchObject({ code: "tool_timeout" });
    // A stop is not a timeout.
    expect(thrownOutcome(new Error("x"), AbortSignal.abort(new Error("stop")), "write").response).toMatchObject({
      code: "aborted",
    });
  });
});

describe("buildStaticTools", () => {
  it("holds the built-ins and the deployment's tools", () => {
    const registry = buildStaticTools([lookup]);
    expect(Object.keys(registry)).toEqual([...Object.keys(BUILTIN_TOOLS), "lookup_order"]);
  });

  it("refuses a built-in's name, a name used twice, and anything not made by defineTool", () => {
    const shadow = defineTool({
      name: "http_fetch",
      description: "",
      input: z.object({}),
      effect: "read",
      run: () => 1,
    });
    expect(() => buildStaticTools([shadow])).toThrow(/"http_fetch" is the name of a built-in tool/);
    expect(() => buildStaticTools([lookup, lookup])).toThrow(/"lookup_order" is defined twice/);
    expect(() => buildStaticTools([{ ...BUILTIN_TOOLS.read_file!, name: "mine" }])).toThrow(
      /not a tool made by defineTool/,
    );
  });
});

describe("idempotencyKeyFor", () => {
  it('is "hw_" + the first 32 hex of sha256(sessionId + ":" + callId)', () => {
    // Computed independently: `printf 's1:c1' | sha256sum`.
    expect(idempotencyKeyFor("s1", "c1")).toBe(`hw_${SHA_S1_C1.slice(0, 32)}`);
    expect(idempotencyKeyFor("s1", "c2")).not.toBe(idempotencyKeyFor("s1", "c1"));
    expect(idempotencyKeyFor("s1", "c1")).toMatch(/^hw_[0-9a-f]{32}$/);
  });
});

const SHA_S1_C1 = "1613052e69762d4b88f42da763d490808f9a7edff13abcd1e1f87836d39e9b32";

describe("callIdempotencyKey", () => {
  it("a dispatched call keeps the key its dispatch recorded (an old log's format too); a new one gets the hw_ key", () => {
    const legacy = { callId: "c1", dispatch: { effect: "idempotent" as const, idempotencyKey: "s1:c1", seq: 5 } };
    expect(callIdempotencyKey(legacy, "s1")).toBe("s1:c1");
    expect(callIdempotencyKey({ callId: "c1", dispatch: null }, "s1")).toBe(idempotencyKeyFor("s1", "c1"));
  });
});
