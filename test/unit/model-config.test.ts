import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { createProvider, type NeutralMessage, ProviderError, resolveDefaultModel } from "../../src/model";
import { parseRetryAfterMs, toAiSdkPrompt, toProviderError } from "../../src/model/convert";

describe("resolveDefaultModel", () => {
  it.each([
    [{}, { provider: "demo", name: "demo", contextWindow: 128_000, maxOutputTokens: 8192 }],
    [
      { MODEL_BASE_URL: "http://127.0.0.1:1/v1" },
      { provider: "openai", name: "gpt-4o-mini", contextWindow: 128_000, maxOutputTokens: 8192 },
    ],
    [
      { MODEL_PROVIDER: "anthropic" },
      { provider: "anthropic", name: "claude-sonnet-4-5", contextWindow: 128_000, maxOutputTokens: 8192 },
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

describe("createProvider", () => {
  it("refuses workers-ai outside a deployed environment with a non-retryable error", () => {
    const config = { provider: "workers-ai", name: "x", contextWindow: 1000, maxOutputTokens: 100 } as const;
    const error = (() => {
      try {
        createProvider(config, {});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: false, status: null });
    expect((error as Error).message).toMatch(/binding/);
  });

  it("names each adapter after its provider", () => {
    for (const provider of ["openai", "anthropic", "demo"] as const) {
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
