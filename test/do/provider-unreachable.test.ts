/**
 * Issue 17 item 12 (docs/API.md §7.8): a provider nobody listens for is a `network` failure with
 * the 1/2/4/8 s backoff, then `model_failed` naming the cause; `restart` is recorded only when
 * the object really restarted. The real openai-compatible adapter and the platform's fetch talk
 * to a closed port; slices are driven by hand with the runtime's clock moved to each `retryAt`.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../src/log";
import { createProvider } from "../../src/model";
import type { ModelConfig } from "../../src/model/types";
import { withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };
/** Port 1 (tcpmux): nothing listens on it here, so a connection is refused at once. */
const CLOSED = "http://127.0.0.1:1/v1";

const attemptsOf = (events: Event[]) =>
  events.flatMap((e) => {
    const m = e.actions?.stateDelta?.modelAttempt as
      | { invocationId: string; attempt: number; code: string; message: string; retryAt: string }
      | undefined;
    return m ? [m] : [];
  });

describe("an unreachable provider", () => {
  it("is four network attempts 1, 2, 4, 8 s apart, then model_failed naming the cause; never a restart", async () => {
    const start = Date.parse("2026-12-01T10:00:00.000Z");
    let t = start;
    const alarms: number[] = [];
    const provider = createProvider(MODEL, { baseUrl: CLOSED, apiKey: "sk-test" });
    await withSession(
      {
        provider,
        model: MODEL,
        now: () => t,
        setAlarm: (at) => void alarms.push(at),
        policy: { backoffMs: [1000, 2000, 4000, 8000] },
      },
      async (h) => {
        await h.runtime.postMessage({ text: "hello", source: "http" });
        for (let i = 0; h.runtime.summary?.openTurn; i++) {
          if (i > 20) throw new Error("the turn did not close");
          await h.runtime.alarm();
          // The slice ended with the alarm at the retry: the next slice runs when it is due.
          const last = attemptsOf(h.events()).at(-1);
          if (last && h.runtime.summary?.openTurn) {
            expect(alarms.at(-1)).toBe(Date.parse(last.retryAt));
            t = Date.parse(last.retryAt);
          }
        }
        const events = h.events();
        const attempts = attemptsOf(events);
        expect(attempts.map((a) => [a.attempt, a.code])).toEqual([
          [1, "network"],
          [2, "network"],
          [3, "network"],
          [4, "network"],
        ]);
        // Each retry waits its backoff after the failure before it: the slices ran at the recorded
        // retryAt, so the spacing of the recorded times is the backoff itself.
        const due = [start, ...attempts.map((a) => Date.parse(a.retryAt))];
        expect(due.slice(1).map((at, i) => at - due[i]!)).toEqual([1000, 2000, 4000, 8000]);
        expect(new Set(attempts.map((a) => a.invocationId)).size).toBe(1);
        expect(events.some((e) => e.actions?.stateDelta?.recoveryNotice)).toBe(false);
        const error = events.at(-2)?.content as { type: string; code: string; message: string };
        expect(error).toMatchObject({ type: "error", code: "model_failed" });
        expect(error.message).toMatch(/network/);
        expect(error.message).toMatch(/refused|connect|network connection/i);
        expect(events.at(-1)?.actions?.turnClose?.reason).toBe("failed");
      },
    );
  });

  it("a call under way when the object restarts is re-issued once as `restart`", async () => {
    // The first incarnation dies with its attempt in flight; the next one records the restart.
    const t = Date.parse("2026-12-01T10:00:00.000Z");
    let release: () => void = () => {};
    const hanging = {
      name: "openai" as const,
      async *stream() {
        await new Promise<void>((r) => {
          release = r;
        });
        throw new Error("the old incarnation is gone");
      },
    };
    const provider = createProvider(MODEL, { baseUrl: CLOSED, apiKey: "sk-test" });
    const policy = { backoffMs: [1000, 2000, 4000, 8000] };
    await withSession({ provider: hanging, model: MODEL, now: () => t, policy }, async (h) => {
      await h.runtime.postMessage({ text: "hello", source: "http" });
      void h.runtime.alarm();
      // Wait until the first incarnation has recorded its request and is streaming.
      for (let i = 0; i < 100 && !h.events().some((e) => e.actions?.modelRequest); i++) await Promise.resolve();
      const next = h.reopen(provider);
      await next.alarm();
      release();
      const attempts = attemptsOf(h.events());
      expect(attempts.map((a) => [a.attempt, a.code])).toEqual([
        [1, "restart"],
        [2, "network"],
      ]);
    });
  });
});
