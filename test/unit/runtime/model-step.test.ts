/** The model step in Node: what a streamed attempt becomes in the log. */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { assembleContext } from "../../../src/context";
import type { Event } from "../../../src/log";
import type { ModelPart } from "../../../src/model/types";
import { ProviderError } from "../../../src/model/types";
import { runModelStep } from "../../../src/runtime/model-step";
import { type FakeRuntime, fakeRuntime, scriptedProvider } from "../support/fake-runtime";
import { MODEL_A, newLog } from "../support/fixtures";

const NEW = { kind: "new", continuation: false } as const;

function userTurn(text = "hi") {
  const ev = newLog();
  ev.created();
  ev.user(text);
  return ev.events;
}

const modelEvents = (rt: FakeRuntime) => rt.events.filter((e) => e.author === "model");
const attempts = (rt: FakeRuntime) =>
  rt.events.map((e) => e.actions?.stateDelta?.modelAttempt).filter(Boolean) as { code: string; attempt: number }[];
const errors = (rt: FakeRuntime) => rt.events.filter((e) => e.content?.type === "error");

const answer = (text: string): ModelPart[] => [
  { type: "text-delta", text: text.slice(0, 2) },
  { type: "text-delta", text: text.slice(2) },
  { type: "usage", inputTokens: 10, outputTokens: 2 },
  { type: "finish", reason: "stop" },
];

afterEach(() => {
  vi.useRealTimers();
});

describe("runModelStep", () => {
  it("records the request, streams deltas tagged with the attempt, then commits the answer", async () => {
    const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(answer("hello")) });
    expect(await runModelStep(rt, NEW, rt.now())).toBe(true);
    const request = rt.events.find((e) => e.actions?.modelRequest)!;
    const [text] = modelEvents(rt);
    expect(text!.content).toEqual({ type: "text", text: "hello" });
    expect(text!.invocationId).toBe(request.invocationId);
    expect(text!.seq).toBeGreaterThan(request.seq);
    expect(rt.deltas.map((d) => [d.invocationId, d.attempt, d.text])).toEqual([
      [request.invocationId, 1, "he"],
      [request.invocationId, 1, "llo"],
    ]);
  });

  it("an attempt, answered or cut, leaves nothing hooked on the session's stop signal", async () => {
    for (const parts of [answer("hello"), [{ type: "text-delta", text: "half" }] as ModelPart[]]) {
      const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(parts) });
      await runModelStep(rt, NEW, rt.now());
      expect(getEventListeners(rt.signal, "abort")).toHaveLength(0);
    }
  });

  it("a stream that ends without a finish is a failed attempt to retry, not an answer", async () => {
    const cut: ModelPart[] = [{ type: "text-delta", text: "half an ans" }];
    const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(cut) });
    expect(await runModelStep(rt, NEW, rt.now())).toBe(true);
    expect(modelEvents(rt)).toEqual([]);
    expect(attempts(rt)).toMatchObject([{ code: "stream_cut", attempt: 1 }]);
  });

  it("a stream silent for the idle limit is a failed attempt (idle_timeout)", async () => {
    vi.useFakeTimers();
    const silent = () => ({
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<ModelPart>>(() => undefined) }),
    });
    const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(silent), policy: { idleTimeoutMs: 5000 } });
    const step = runModelStep(rt, NEW, rt.now());
    await vi.advanceTimersByTimeAsync(5000);
    expect(await step).toBe(true);
    expect(modelEvents(rt)).toEqual([]);
    expect(attempts(rt)).toMatchObject([{ code: "idle_timeout", attempt: 1 }]);
  });

  it("a stream still running at the slice's limit fails the turn (too_long is not retried)", async () => {
    vi.useFakeTimers();
    const trickle = () =>
      (async function* () {
        for (;;) {
          await new Promise((r) => setTimeout(r, 1000));
          yield { type: "text-delta", text: "." } as ModelPart;
        }
      })();
    const rt = fakeRuntime(userTurn(), {
      provider: scriptedProvider(trickle),
      policy: { idleTimeoutMs: 5000, streamCutMs: 10_000 },
    });
    const step = runModelStep(rt, NEW, rt.now());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await step).toBe(false);
    expect(modelEvents(rt)).toEqual([]);
    expect(JSON.stringify(errors(rt)[0]?.content)).toContain("too_long");
  });

  it("a stop during the stream commits nothing of the answer", async () => {
    let rt!: FakeRuntime;
    const stoppedMidway = () =>
      (async function* () {
        yield { type: "text-delta", text: "par" } as ModelPart;
        rt.abort();
        yield { type: "text-delta", text: "tial" } as ModelPart;
        yield { type: "finish", reason: "stop" } as ModelPart;
      })();
    rt = fakeRuntime(userTurn(), { provider: scriptedProvider(stoppedMidway) });
    expect(await runModelStep(rt, NEW, rt.now())).toBe(false);
    expect(modelEvents(rt)).toEqual([]);
    expect(attempts(rt)).toEqual([]);
  });

  it("a provider that refuses the request (401) fails the turn at once, with no retry", async () => {
    const refused = () =>
      // biome-ignore lint/correctness/useYield: a provider that fails before its first part
      (async function* (): AsyncGenerator<ModelPart> {
        throw new ProviderError("bad key", 401, false);
      })();
    const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(refused) });
    expect(await runModelStep(rt, NEW, rt.now())).toBe(false);
    expect(attempts(rt)).toEqual([]);
    expect(errors(rt)[0]!.content).toMatchObject({ type: "error", code: "model_failed" });
  });

  it("input arriving while the model answers is placed after that answer in the next request", async () => {
    let rt!: FakeRuntime;
    const withInput = () =>
      (async function* () {
        yield { type: "text-delta", text: "first answer" } as ModelPart;
        rt.append([
          {
            author: "user",
            modelVisibility: "visible",
            turnId: "t1",
            runId: "r1",
            source: "http",
            content: { type: "text", text: "and also this" },
          },
        ]);
        yield { type: "finish", reason: "stop" } as ModelPart;
      })();
    rt = fakeRuntime(userTurn("first question"), { provider: scriptedProvider(withInput) });
    await runModelStep(rt, NEW, rt.now());
    const input = rt.events.find((e: Event) => e.content?.type === "text" && e.content.text === "and also this")!;
    const [reply] = modelEvents(rt);
    // In the log the input came first; in the model's context it follows the answer it interrupted.
    expect(input.seq).toBeLessThan(reply!.seq);
    const { ctx } = assembleContext(rt.deps, rt.contextInput(MODEL_A), null);
    const texts = ctx.messages.map((m) => JSON.stringify(m));
    const at = (s: string) => texts.findIndex((t) => t.includes(s));
    expect(at("first question")).toBeGreaterThanOrEqual(0);
    expect(at("first question")).toBeLessThan(at("first answer"));
    expect(at("first answer")).toBeLessThan(at("and also this"));
  });
});
