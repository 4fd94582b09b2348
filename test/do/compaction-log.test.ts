/**
 * docs/API.md §7.29, §3 (issue 17 item 6): a compaction's model calls are in the log. Each has its
 * own invocationId and a hidden `modelRequest { purpose: "compaction" }` committed before it is
 * sent; a failed attempt appends `modelAttempt` and ends the slice with the alarm at `retryAt`
 * (no sleep); its usage is in the session's usage and not in the turn's model calls; a restart
 * mid-compaction re-issues the call as `restart`. Slices are driven by hand with a moved clock.
 */
import { describe, expect, it } from "vitest";
import { computeThreshold } from "../../src/context";
import type { Event } from "../../src/log";
import { type ModelConfig, type ModelProvider, ProviderError } from "../../src/model/types";
import { isSummaryRequest, type Step, scriptedProvider, withSession } from "./context-harness";

const SMALL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 6000, maxOutputTokens: 1500 };
const filler = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1))).slice(0, n);
expect(computeThreshold(6000, 1500)).toBeGreaterThan(0);

/** Ten heavy steps (enough to compact once), then an answer. */
const script = (_r: unknown, n: number): Step =>
  n < 10
    ? { kind: "call", name: "write_file", args: { path: `s/${n}.md`, content: filler(1800, `part${n}`) } }
    : { kind: "answer", text: "done" };

/** The scripted model, with its first `failures` compaction calls failing (503) or never answering. */
function withFailingSummaries(inner: ModelProvider, failures: number, mode: "503" | "hang" = "503") {
  let left = failures;
  const seen = { summaryCalls: 0 };
  const provider: ModelProvider = {
    name: "openai",
    async *stream(request, signal) {
      if (isSummaryRequest(request)) {
        seen.summaryCalls++;
        if (left-- > 0) {
          if (mode === "hang") await new Promise(() => {});
          throw new ProviderError("503: busy", 503, true);
        }
      }
      yield* inner.stream(request, signal);
    },
  };
  return { provider, seen };
}

const compactionRequests = (events: Event[]) => events.filter((e) => e.actions?.modelRequest?.purpose === "compaction");
const attemptsOf = (events: Event[]) =>
  events.flatMap((e) => {
    const m = e.actions?.stateDelta?.modelAttempt as
      | { invocationId: string; attempt: number; code: string; retryAt: string }
      | undefined;
    return m ? [{ ...m, seq: e.seq }] : [];
  });

describe("compaction calls are in the log (docs/API.md §7.29)", () => {
  it("a failed compaction call is a modelAttempt, retried by the alarm at retryAt; usage counts, the budget does not", async () => {
    const start = Date.parse("2026-12-01T10:00:00.000Z");
    let t = start;
    const alarms: number[] = [];
    const { provider, seen } = withFailingSummaries(scriptedProvider({ next: script }), 2);
    await withSession(
      {
        provider,
        model: SMALL,
        now: () => t,
        setAlarm: (at) => void alarms.push(at),
        policy: { backoffMs: [1000, 2000, 4000, 8000] },
      },
      async (h) => {
        await h.runtime.postMessage({ text: "GOAL: write the parts", source: "http" });
        const retried: number[] = [];
        for (let i = 0; h.runtime.summary?.openTurn; i++) {
          if (i > 40) throw new Error("the turn did not close");
          const calls = seen.summaryCalls;
          await h.runtime.alarm();
          const events = h.events();
          const last = attemptsOf(events).at(-1);
          if (last && Date.parse(last.retryAt) > t && h.runtime.summary?.openTurn) {
            // The slice ended at the failure: one call, no sleep-and-retry, the alarm at retryAt.
            expect(seen.summaryCalls - calls).toBe(1);
            expect(alarms.at(-1)).toBe(Date.parse(last.retryAt));
            const open = h.runtime.summary.openTurn as { modelCalls?: number };
            const turnInvocations = new Set(
              events
                .filter((e) => e.actions?.modelRequest && !e.actions.modelRequest.purpose)
                .map((e) => e.invocationId),
            );
            // docs/API.md §7.28: compaction calls are not the turn's model calls.
            expect(open.modelCalls).toBe(turnInvocations.size);
            retried.push(Date.parse(last.retryAt) - t);
            t = Date.parse(last.retryAt);
          }
        }
        expect(retried).toEqual([1000, 2000]);
        const events = h.events();
        const requests = compactionRequests(events);
        expect(requests.length).toBeGreaterThanOrEqual(1);
        const failed = requests[0]!;
        const attempts = attemptsOf(events);
        expect(attempts.map((a) => [a.invocationId, a.attempt, a.code])).toEqual([
          [failed.invocationId, 1, "http_503"],
          [failed.invocationId, 2, "http_503"],
        ]);
        // Recorded before it was sent: the request precedes each of its attempts.
        for (const a of attempts) expect(a.seq).toBeGreaterThan(failed.seq);
        // The third attempt sent the recorded request again: no new request, then the checkpoint.
        expect(requests.filter((e) => e.invocationId === failed.invocationId)).toHaveLength(1);
        const checkpoint = events.find((e) => e.seq > failed.seq && e.actions?.stateDelta?.checkpoint)!;
        const payload = checkpoint.actions!.stateDelta!.checkpoint as {
          method: string;
          usage: { inputTokens: number; outputTokens: number };
        };
        expect(payload.method).toBe("model");
        // Its usage is the session's: the turn's answers plus the compaction's.
        const turnUsage = events.reduce((n, e) => n + (e.actions?.tokenUsage?.inputTokens ?? 0), 0);
        expect(payload.usage.inputTokens).toBeGreaterThan(0);
        const compactionUsage = events.reduce(
          (n, e) =>
            n + ((e.actions?.stateDelta?.checkpoint as { usage?: { inputTokens: number } })?.usage?.inputTokens ?? 0),
          0,
        );
        expect(h.runtime.session().usage.inputTokens).toBe(turnUsage + compactionUsage);
        expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
      },
    );
  });

  it("a restart mid-compaction re-issues the call: a `restart` attempt and a notice naming it", async () => {
    const inner = scriptedProvider({ next: script });
    const { provider: hanging } = withFailingSummaries(inner, 1, "hang");
    await withSession({ provider: hanging, model: SMALL }, async (h) => {
      await h.runtime.postMessage({ text: "GOAL: write the parts", source: "http" });
      void h.runtime.alarm();
      // The first incarnation runs until its compaction call is under way, and never comes back.
      for (let i = 0; i < 5000 && compactionRequests(h.events()).length === 0; i++)
        await new Promise((r) => setTimeout(r, 0));
      const [request] = compactionRequests(h.events());
      expect(request).toBeDefined();
      const next = h.reopen(inner);
      for (let i = 0; next.summary?.openTurn; i++) {
        if (i > 40) throw new Error("the turn did not close");
        await next.alarm();
      }
      const events = h.events();
      const attempts = attemptsOf(events);
      expect(attempts.map((a) => [a.invocationId, a.attempt, a.code])).toEqual([[request!.invocationId, 1, "restart"]]);
      const notice = events.find((e) => e.actions?.stateDelta?.recoveryNotice)!.actions!.stateDelta!.recoveryNotice;
      expect(notice).toMatchObject({ rerun: [], needsReview: [], reissued: [request!.invocationId] });
      // Issued again under the same invocation, then its checkpoint; the turn completes.
      const after = events.filter((e) => e.seq > attempts[0]!.seq);
      expect(after.some((e) => e.actions?.stateDelta?.checkpoint)).toBe(true);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });
});
