import { describe, expect, it } from "vitest";
import { type ModelConfig, type ModelPart, type ModelProvider, ProviderError } from "../../src/model/types";
import { withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** Fails with the given errors first, then answers "done". */
function flakyProvider(errors: Error[]): ModelProvider & { calls: number } {
  const p = {
    name: "openai" as const,
    calls: 0,
    async *stream(): AsyncIterable<ModelPart> {
      const err = errors[p.calls++];
      if (err) throw err;
      yield { type: "text-delta", text: "done" };
      yield { type: "usage", inputTokens: 100, outputTokens: 1 };
      yield { type: "finish", reason: "stop" };
    },
  };
  return p;
}

describe("provider errors", () => {
  it("are retried (429, 5xx, network) and the turn completes on one model request", async () => {
    const provider = flakyProvider([
      new ProviderError("rate limited", 429, true, 1500),
      new ProviderError("bad gateway", 502, true),
      new ProviderError("socket closed", null, true),
    ]);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    await withSession({ provider, model: MODEL, sleep }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(provider.calls).toBe(4);
      // Retry-After (1.5 s) is honoured; otherwise the 1/2/4/8 s schedule.
      expect(waits).toEqual([1500, 2000, 4000]);
      expect(events.filter((e) => e.actions?.modelRequest)).toHaveLength(1);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
      expect(events.some((e) => e.content?.type === "text" && e.content.text === "done")).toBe(true);
    });
  });

  it("append an error and fail the turn once 4 retries are exhausted", async () => {
    const provider = flakyProvider(Array.from({ length: 5 }, () => new ProviderError("overloaded", 503, true)));
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(provider.calls).toBe(5);
      const error = events.find((e) => e.content?.type === "error");
      expect(error?.content).toMatchObject({ type: "error", code: "provider_error" });
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("failed");
      expect(h.runtime.session().status).toBe("failed");
    });
  });

  it("a 4xx other than 408/409/429 fails at once, without retries", async () => {
    const provider = flakyProvider([new ProviderError("bad request", 400, false)]);
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      expect(provider.calls).toBe(1);
      expect(h.events().at(-1)?.actions?.turnClose?.reason).toBe("failed");
    });
  });
});
