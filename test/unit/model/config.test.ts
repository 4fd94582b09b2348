import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import {
  createConfiguredProvider,
  createProvider,
  describeDefaultProvider,
  describeProviders,
  type ModelConfig,
  type ModelEnv,
  type NeutralMessage,
  ProviderError,
  resolveDefaultModel,
  resolveProviders,
} from "../../../src/model";
import { parseRetryAfterMs, toAiSdkPrompt, toProviderError } from "../../../src/model/convert";

describe("resolveDefaultModel", () => {
  it.each([
    [{}, { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 }],
    [
      { MODEL_BASE_URL: "http://127.0.0.1:1/v1" },
      { provider: "openai", name: "gpt-4o-mini", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [
      { MODEL_PROVIDER: "anthropic", MODEL_API_KEY: "sk-ant-1" },
      { provider: "anthropic", name: "claude-sonnet-4-5", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    // An unconfigured default falls back to demo (docs/API.md §7.23); MODEL_NAME is the other provider's.
    [
      { MODEL_PROVIDER: "anthropic", MODEL_NAME: "claude-x" },
      { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [{ MODEL_PROVIDER: "openai" }, { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 }],
    [
      { MODEL_PROVIDER: "openai", MODEL_API_KEY: "sk-1" },
      { provider: "openai", name: "gpt-4o-mini", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [
      { MODEL_PROVIDER: "workers-ai" },
      { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [
      { MODEL_PROVIDER: "demo", MODEL_BASE_URL: "http://x/v1" },
      { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [
      { MODEL_BASE_URL: "http://x/v1", MODEL_NAME: "llama3", MODEL_CONTEXT_WINDOW: "16000" },
      { provider: "openai", name: "llama3", contextWindow: 16_000, maxOutputTokens: 4000 },
    ],
    [
      { MODEL_CONTEXT_WINDOW: "16000", MODEL_MAX_OUTPUT_TOKENS: "1234" },
      { provider: "demo", name: "demo", contextWindow: 16_000, maxOutputTokens: 1234 },
    ],
    [
      { MODEL_PROVIDER: "", MODEL_BASE_URL: "", MODEL_NAME: " ", MODEL_CONTEXT_WINDOW: "" },
      { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
  ])("%j → %j", (env, expected) => {
    expect(resolveDefaultModel(env)).toEqual(expected);
  });

  it.each([{ MODEL_PROVIDER: "gpt" }, { MODEL_CONTEXT_WINDOW: "lots" }, { MODEL_MAX_OUTPUT_TOKENS: "-5" }])(
    "rejects the misconfiguration %j",
    (env) => {
      expect(() => resolveDefaultModel(env)).toThrow(/MODEL_/);
    },
  );
});

describe("credentials belong to one provider (docs/API.md §1, §7.23)", () => {
  const configured = (env: ModelEnv) => Object.keys(resolveProviders(env).credentials).sort();

  it.each<[ModelEnv, string[]]>([
    [{}, ["demo"]],
    [{ MODEL_PROVIDER: "anthropic", MODEL_API_KEY: "sk-ant" }, ["anthropic", "demo"]],
    [{ MODEL_PROVIDER: "anthropic" }, ["demo"]],
    [{ MODEL_BASE_URL: "http://127.0.0.1:1/v1" }, ["demo", "openai"]],
    [{ OPENAI_API_KEY: "sk-oa" }, ["demo", "openai"]],
    [{ OPENAI_BASE_URL: "http://127.0.0.1:2/v1" }, ["demo", "openai"]],
    [{ ANTHROPIC_BASE_URL: "http://127.0.0.1:3" }, ["demo"]],
    [{ ANTHROPIC_API_KEY: "sk-ant" }, ["anthropic", "demo"]],
    [{ AI: {} }, ["demo", "workers-ai"]],
    [
      { MODEL_PROVIDER: "anthropic", MODEL_API_KEY: "sk-ant", OPENAI_API_KEY: "sk-oa", AI: {} },
      ["anthropic", "demo", "openai", "workers-ai"],
    ],
  ])("%j configures %j", (env, names) => {
    expect(configured(env)).toEqual(names);
  });

  it("the default's key stays with the default; OPENAI_* are ignored when the default is openai", () => {
    const t = resolveProviders({
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: "http://default/v1",
      MODEL_API_KEY: "sk-default",
      OPENAI_BASE_URL: "http://other/v1",
      OPENAI_API_KEY: "sk-other",
      ANTHROPIC_API_KEY: "sk-ant",
    });
    expect(t.credentials.openai).toEqual({ baseUrl: "http://default/v1", apiKey: "sk-default" });
    expect(t.credentials.anthropic).toEqual({ apiKey: "sk-ant" });
    expect(resolveProviders({ OPENAI_API_KEY: "sk-oa" }).credentials.openai).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-oa",
    });
  });

  it("lists the configured providers with the default first", () => {
    expect(describeProviders({ MODEL_PROVIDER: "anthropic", MODEL_API_KEY: "k", MODEL_NAME: "claude-x" })).toEqual({
      providers: [
        { name: "anthropic", isDefault: true, defaultModel: "claude-x", demo: false },
        { name: "demo", isDefault: false, defaultModel: "demo", demo: true },
      ],
    });
  });

  it("the start line says why an unconfigured default fell back to demo", () => {
    expect(describeDefaultProvider({ MODEL_PROVIDER: "anthropic" })).toMatch(
      /MODEL_PROVIDER=anthropic needs MODEL_API_KEY; the default provider is demo/,
    );
    expect(describeDefaultProvider({ MODEL_BASE_URL: "http://x/v1" })).toMatch(/default provider openai/);
  });

  const request = (provider: ModelConfig["provider"]) => ({
    model: { provider, name: "m", contextWindow: 128_000, maxOutputTokens: 8192 },
    messages: [
      { role: "system" as const, content: "s" },
      { role: "user" as const, content: "hi" },
    ],
    tools: [],
  });

  /** Streams one request and records where it went and which credentials it carried. */
  async function sent(env: ModelEnv, provider: ModelConfig["provider"]) {
    const calls: { url: string; auth: string | null; apiKey: string | null }[] = [];
    const spy = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      calls.push({ url: String(input), auth: headers.get("authorization"), apiKey: headers.get("x-api-key") });
      return new Response("{}", { status: 400, headers: { "content-type": "application/json" } });
    }) as typeof fetch;
    const model = createConfiguredProvider(env, request(provider).model, spy);
    let failure: unknown;
    try {
      for await (const _ of model.stream(request(provider), new AbortController().signal)) {
        // drain
      }
    } catch (err) {
      failure = err;
    }
    return { calls, failure };
  }

  it("the default provider's key is never sent to another provider's endpoint", async () => {
    const env = { MODEL_PROVIDER: "anthropic", MODEL_API_KEY: "sk-ant-secret" };
    const other = await sent(env, "openai");
    expect(other.calls).toEqual([]);
    expect(other.failure).toBeInstanceOf(ProviderError);
    expect((other.failure as ProviderError).retryable).toBe(false);

    const withOwn = await sent({ ...env, OPENAI_BASE_URL: "http://openai.test/v1", OPENAI_API_KEY: "sk-oa" }, "openai");
    expect(withOwn.calls).toEqual([
      { url: "http://openai.test/v1/chat/completions", auth: "Bearer sk-oa", apiKey: null },
    ]);

    const own = await sent({ ...env, MODEL_BASE_URL: "http://anthropic.test/v1" }, "anthropic");
    expect(own.calls).toHaveLength(1);
    expect(own.calls[0]).toMatchObject({ apiKey: "sk-ant-secret" });
    expect(own.calls[0]!.url.startsWith("http://anthropic.test/v1/")).toBe(true);
    expect(JSON.stringify([...other.calls, ...withOwn.calls])).not.toContain("sk-ant-secret");
  });
});

describe("createProvider", () => {
  it("names each adapter after its provider", () => {
    for (const provider of ["openai", "anthropic", "workers-ai", "demo"] as const) {
      const config = { provider, name: "m", contextWindow: 1000, maxOutputTokens: 100 };
      expect(createProvider(config, { baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" }).name).toBe(provider);
    }
  });
});

describe("retry decisions", () => {
  const NOW = Date.parse("2026-01-01T00:00:00Z");

  it.each([
    [{ "retry-after": "3" }, 3000],
    [{ "Retry-After": "0.5" }, 500],
    [{ "retry-after-ms": "250", "retry-after": "9" }, 250],
    [{ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }, 10_000],
    [{ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }, 0],
    [{ "retry-after": "soon" }, undefined],
    [{}, undefined],
  ])("Retry-After %j → %s ms", (headers, expected) => {
    expect(parseRetryAfterMs(headers, NOW)).toBe(expected);
  });

  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [529, true],
    [400, false],
    [401, false],
    [404, false],
    [413, false],
  ])("HTTP %i → retryable %s", (status, retryable) => {
    const error = new APICallError({ message: "x", url: "u", requestBodyValues: {}, statusCode: status });
    expect(toProviderError(error)).toMatchObject({ status, retryable });
  });

  it("keeps stream error types that retrying cannot fix as final", () => {
    expect(toProviderError({ type: "invalid_request_error", message: "prompt too long" })).toMatchObject({
      retryable: false,
    });
    expect(toProviderError({ type: "overloaded_error", message: "busy" })).toMatchObject({ retryable: true });
  });
});

describe("toAiSdkPrompt", () => {
  const messages: NeutralMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "thinking", text: "t", signature: "s" }] },
    { role: "system", content: "note" },
    {
      role: "tool",
      content: [
        { type: "tool-result", callId: "c", name: "n", status: "interrupted", output: { directive: "inspect" } },
      ],
    },
  ];

  it("lifts the first system message into instructions and keeps the rest in order", () => {
    expect(toAiSdkPrompt(messages, "openai")).toEqual({
      instructions: "sys",
      messages: [
        { role: "user", content: "hi" },
        // Unsigned-or-not, thinking is not sent to Chat Completions; the now-empty message is dropped.
        { role: "system", content: "note" },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c",
              toolName: "n",
              output: { type: "error-json", value: { directive: "inspect" } },
            },
          ],
        },
      ],
    });
  });

  it("is deterministic", () => {
    expect(JSON.stringify(toAiSdkPrompt(messages, "anthropic"))).toBe(
      JSON.stringify(toAiSdkPrompt(structuredClone(messages), "anthropic")),
    );
  });
});
