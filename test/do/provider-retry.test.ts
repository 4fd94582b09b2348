/**
 * docs/API.md §3 "Model attempts", §7.8, §7.9, §7.10, §7.13: every failed attempt is a durable
 * hidden `modelAttempt`, the wait is the alarm, deltas carry the attempt, a cut stream is a
 * failed attempt, the SDK's verdict decides, and a slice that keeps failing closes the turn.
 * Slices are driven by hand (`runtime.alarm()`), with the clock injected: no sleeping.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../src/log";
import { createProvider } from "../../src/model";
import { type ModelConfig, type ModelPart, type ModelProvider, ProviderError } from "../../src/model/types";
import { withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };

type Script = (n: number) => ModelPart[] | Error;

/** Answers call n with `script(n)`: parts to stream (an Error among them is thrown there). */
function scripted(script: Script): ModelProvider & { calls: number } {
  const p = {
    name: "openai" as const,
    calls: 0,
    async *stream(): AsyncIterable<ModelPart> {
      const out = script(p.calls++);
      if (out instanceof Error) throw out;
      for (const part of out) {
        if (part instanceof Error) throw part;
        yield part;
      }
    },
  };
  return p;
}

const DONE: ModelPart[] = [
  { type: "text-delta", text: "done" },
  { type: "usage", inputTokens: 100, outputTokens: 1 },
  { type: "finish", reason: "stop" },
];

const attemptsOf = (events: Event[]) =>
  events.flatMap((e) => {
    const m = e.actions?.stateDelta?.modelAttempt as Record<string, unknown> | undefined;
    return m ? [m] : [];
  });

/** A clock the test moves, and the alarms the runtime armed. */
function clock() {
  let t = 1_000_000;
  const alarms: number[] = [];
  return { now: () => t, set: (at: number) => (t = at), alarms, setAlarm: (at: number) => void alarms.push(at) };
}

describe("model attempts are durable and visible", () => {
  it("each failed attempt appends modelAttempt; the wait is an alarm at retryAt; the turn completes on one request", async () => {
    const c = clock();
    const provider = scripted((n) =>
      n === 0
        ? new ProviderError("rate limited", 429, true, 1500)
        : n === 1
          ? [{ type: "text-delta", text: "Answer after " }, new ProviderError("bad gateway", 502, true) as never]
          : n === 2
            ? new ProviderError("socket closed", null, true)
            : DONE,
    );
    await withSession(
      { provider, model: MODEL, now: c.now, setAlarm: c.setAlarm, policy: { backoffMs: [1000, 2000, 4000, 8000] } },
      async (h) => {
        await h.runtime.postMessage({ text: "hello", source: "http" });
        await h.runtime.alarm();
        // The first attempt failed: recorded, and the slice ended with the alarm at retryAt.
        let attempts = attemptsOf(h.events());
        expect(attempts).toEqual([
          {
            invocationId: expect.any(String),
            attempt: 1,
            code: "http_429",
            message: "rate limited",
            retryAt: new Date(c.now() + 1500).toISOString(),
          },
        ]);
        expect(c.alarms.at(-1)).toBe(c.now() + 1500);
        expect(provider.calls).toBe(1);
        // An alarm that fires early (a message kicked it) does not retry before retryAt.
        await h.runtime.alarm();
        expect(provider.calls).toBe(1);
        for (let i = 0; i < 5 && h.runtime.summary?.openTurn; i++) {
          c.set(c.alarms.at(-1)!);
          await h.runtime.alarm();
        }
        const events = h.events();
        attempts = attemptsOf(events);
        expect(attempts.map((a) => [a.attempt, a.code])).toEqual([
          [1, "http_429"],
          [2, "http_502"],
          [3, "network"],
        ]);
        const invocation = events.find((e) => e.actions?.modelRequest)!.invocationId;
        expect(new Set(attempts.map((a) => a.invocationId))).toEqual(new Set([invocation]));
        for (const e of events.filter((x) => x.actions?.stateDelta?.modelAttempt))
          expect(e).toMatchObject({ author: "runtime", modelVisibility: "hidden" });
        expect(events.filter((e) => e.actions?.modelRequest)).toHaveLength(1);
        expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
        // Deltas carry the attempt they belong to: the cut attempt's text is attempt 2's, the answer is attempt 4's.
        expect(h.deltas.map((d) => [d.attempt, d.text])).toEqual([
          [2, "Answer after "],
          [4, "done"],
        ]);
        expect(h.deltas.every((d) => d.invocationId === invocation)).toBe(true);
      },
    );
  });

  it("after 4 retries the fifth failure appends error model_failed and turnClose failed, not a fifth modelAttempt", async () => {
    const provider = scripted(() => new ProviderError("overloaded", 503, true));
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(provider.calls).toBe(5);
      expect(attemptsOf(events).map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
      const [error, close] = events.slice(-2);
      expect(error?.content).toMatchObject({ type: "error", code: "model_failed" });
      expect(close?.actions?.turnClose?.reason).toBe("failed");
      expect(h.runtime.session().status).toBe("failed");
    });
  });

  it("a 4xx other than 408/409/429 fails at once, with no modelAttempt", async () => {
    const provider = scripted(() => new ProviderError("bad request", 400, false));
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      expect(provider.calls).toBe(1);
      expect(attemptsOf(h.events())).toEqual([]);
      expect(h.events().at(-1)?.actions?.turnClose?.reason).toBe("failed");
    });
  });

  it("a provider that cannot be created fails the turn at once as model_failed (no attempt, no hang)", async () => {
    const providerFor = () => {
      throw new ProviderError("workers-ai needs the Workers AI binding (AI)", null, false);
    };
    await withSession({ provider: scripted(() => DONE), providerFor, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(attemptsOf(events)).toEqual([]);
      expect(events.at(-2)?.content).toMatchObject({ type: "error", code: "model_failed" });
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("failed");
    });
  });

  it("a stream that ends without the provider's finish is a failed attempt (stream_cut), never an answer", async () => {
    const provider = scripted((n) => (n === 0 ? [{ type: "text-delta", text: "half an ans" }] : DONE));
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(attemptsOf(events).map((a) => a.code)).toEqual(["stream_cut"]);
      const texts = events.filter((e) => e.author === "model").map((e) => e.content);
      expect(texts).toEqual([{ type: "text", text: "done" }]);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });

  it("a stream with no chunk for the idle limit is a failed attempt (idle_timeout), retried", async () => {
    let n = 0;
    const provider: ModelProvider = {
      name: "openai",
      async *stream() {
        if (n++ === 0) {
          yield { type: "text-delta", text: "thinking about it" };
          await new Promise(() => {}); // the provider goes silent
        }
        yield* DONE;
      },
    };
    await withSession({ provider, model: MODEL, policy: { idleTimeoutMs: 1 } }, async (h) => {
      await h.runtime.postMessage({ text: "hello", source: "http" });
      await h.runtime.alarm();
      // While an attempt streams, a late socket gets its text so far (docs/API.md §7.18); here it was cut.
      expect(h.runtime.inflightReplay()).toEqual([]);
      for (let i = 0; i < 5 && h.runtime.summary?.openTurn; i++) await h.runtime.alarm();
      const events = h.events();
      expect(attemptsOf(events).map((a) => [a.attempt, a.code])).toEqual([[1, "idle_timeout"]]);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });

  it("a stream still running at the slice's stream limit is cut as too_long and not retried (docs/API.md §7.14)", async () => {
    const provider: ModelProvider = {
      name: "openai",
      async *stream() {
        yield { type: "text-delta", text: "a very long answer" };
        await new Promise(() => {});
      },
    };
    await withSession({ provider, model: MODEL, policy: { streamCutMs: 0 } }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(attemptsOf(events)).toEqual([]);
      expect(events.at(-2)?.content).toMatchObject({ type: "error", code: "model_failed" });
      expect((events.at(-2)!.content as { message: string }).message).toContain("too_long");
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("failed");
    });
  });

  it("a late socket's in-flight replay is the current attempt's text so far, tagged with its attempt", async () => {
    let streamed: () => void = () => {};
    const halfway = new Promise<void>((r) => {
      streamed = r;
    });
    const provider: ModelProvider = {
      name: "openai",
      async *stream() {
        yield { type: "text-delta", text: "Hel" };
        yield { type: "text-delta", text: "lo" };
        streamed();
        await new Promise(() => {});
      },
    };
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runtime.postMessage({ text: "hello", source: "http" });
      const slice = h.runtime.alarm();
      await halfway;
      const invocationId = h.events().find((e) => e.actions?.modelRequest)!.invocationId;
      expect(h.runtime.inflightReplay()).toEqual([
        { invocationId, attempt: 1, kind: "text", text: "Hello", replace: true },
      ]);
      h.runtime.stop();
      await slice;
      expect(h.runtime.inflightReplay()).toEqual([]);
      expect(h.events().filter((e) => e.author === "model")).toEqual([]);
    });
  });

  it("the message of an attempt is redacted and at most 500 characters", async () => {
    const provider = scripted((n) =>
      n === 0 ? new ProviderError(`401 key sk-abcdef1234567890 Bearer tok.en ${"x".repeat(900)}`, 503, true) : DONE,
    );
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const [a] = attemptsOf(h.events());
      expect(String(a!.message).length).toBeLessThanOrEqual(500);
      expect(a!.message).not.toContain("sk-abcdef");
      expect(a!.message).not.toContain("tok.en");
    });
  });
});

/** An OpenAI-compatible endpoint in memory: each call answers one scripted SSE body. */
function sseFetch(bodies: ((enc: TextEncoder) => ReadableStream<Uint8Array>)[]) {
  let n = 0;
  const f = (async () => {
    const make = bodies[Math.min(n++, bodies.length - 1)]!;
    return new Response(make(new TextEncoder()), { status: 200, headers: { "content-type": "text/event-stream" } });
  }) as unknown as typeof fetch;
  return { fetch: f, calls: () => n };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe("through the real openai-compatible adapter", () => {
  it("a connection lost mid-stream is a retryable failed attempt and the turn completes", async () => {
    const endpoint = sseFetch([
      (enc) =>
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode(chunk({ content: "partial" })));
            c.error(new TypeError("terminated"));
          },
        }),
      (enc) =>
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode(chunk({ content: "whole answer" })));
            c.enqueue(enc.encode(chunk({}, "stop")));
            c.enqueue(enc.encode("data: [DONE]\n\n"));
            c.close();
          },
        }),
    ]);
    const provider = createProvider(MODEL, {
      baseUrl: "http://model.test/v1",
      apiKey: "sk-test",
      fetch: endpoint.fetch,
    });
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(endpoint.calls()).toBe(2);
      expect(attemptsOf(events)).toHaveLength(1);
      expect(attemptsOf(events)[0]).toMatchObject({ attempt: 1, code: "network" });
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
      expect(events.find((e) => e.author === "model")?.content).toEqual({ type: "text", text: "whole answer" });
      expect(events.find((e) => e.author === "model")?.actions?.stateDelta?.finishReason).toBe("stop");
    });
  });

  it("invalid_request_error inside the stream is not retried (the SDK says so)", async () => {
    const endpoint = sseFetch([
      (enc) =>
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode(chunk({ content: "x" })));
            c.enqueue(
              enc.encode(
                `data: ${JSON.stringify({ error: { message: "bad tool schema", type: "invalid_request_error", code: null } })}\n\n`,
              ),
            );
            c.enqueue(enc.encode("data: [DONE]\n\n"));
            c.close();
          },
        }),
    ]);
    const provider = createProvider(MODEL, {
      baseUrl: "http://model.test/v1",
      apiKey: "sk-test",
      fetch: endpoint.fetch,
    });
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      expect(endpoint.calls()).toBe(1);
      expect(attemptsOf(events)).toEqual([]);
      expect(events.at(-2)?.content).toMatchObject({ type: "error", code: "model_failed" });
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("failed");
    });
  });
});

describe("poison slices (docs/API.md §7.13)", () => {
  it("a slice that throws before committing is retried at 2, 4, 8, 16 s; the next closes the turn with error internal", async () => {
    const c = clock();
    let built = 0;
    const providerFor = () => {
      built++;
      // A deterministic bug of ours: not a provider failure, so no attempt is recorded.
      throw new TypeError("cannot read properties of undefined (reading 'name')");
    };
    await withSession(
      {
        provider: scripted(() => DONE),
        providerFor,
        model: MODEL,
        now: c.now,
        setAlarm: c.setAlarm,
        policy: { sliceBackoffMs: [2000, 4000, 8000, 16_000] },
      },
      async (h) => {
        await h.runtime.postMessage({ text: "hello", source: "http" });
        const head = h.events().at(-1)!.seq;
        const waits: number[] = [];
        for (let i = 0; i < 5; i++) {
          await h.runtime.alarm();
          waits.push(c.alarms.at(-1)! - c.now());
          c.set(c.alarms.at(-1)!);
        }
        expect(built).toBe(5);
        expect(waits.slice(0, 4)).toEqual([2000, 4000, 8000, 16_000]);
        expect(h.events().at(-1)!.seq).toBe(head);
        expect(h.runtime.summary?.openTurn).not.toBeNull();
        await h.runtime.alarm();
        expect(built).toBe(5);
        const tail = h.events().slice(-2);
        expect(tail.map((e) => e.seq)).toEqual([head + 1, head + 2]);
        expect(tail[0]).toMatchObject({
          author: "runtime",
          modelVisibility: "hidden",
          content: { type: "error", code: "internal" },
        });
        expect(tail[1]?.actions?.turnClose?.reason).toBe("failed");
        expect(attemptsOf(h.events())).toEqual([]);
        // Closed: a later alarm does nothing.
        await h.runtime.alarm();
        expect(h.events()).toHaveLength(head + 2);
      },
    );
  });
});
