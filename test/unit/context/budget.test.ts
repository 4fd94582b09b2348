import { describe, expect, it } from "vitest";
import {
  buildNextContext,
  compactionBudget,
  computeThreshold,
  defaultMaxOutputTokens,
  estimateContextTokens,
} from "../../../src/context";
import type { EventStore } from "../../../src/log";
import type { ToolSpec } from "../../../src/model/types";
import type { SessionSummary } from "../../../src/projections";
import { buildModelMessages } from "../../../src/projections";
import type { SqlLike } from "../../../src/storage";
import { newLog } from "../support/fixtures";

describe("the threshold", () => {
  // threshold = min(floor(0.9·W), W − maxOut − min(ceil(0.02·W), 1000)), maxOut defaulting to min(8192, W/4).
  it.each([
    { W: 6_000, maxOut: 1_500, threshold: 4_380 },
    { W: 8_000, maxOut: 2_000, threshold: 5_840 },
    { W: 128_000, maxOut: 8_192, threshold: 115_200 },
    { W: 200_000, maxOut: 8_192, threshold: 180_000 },
    { W: 1_000_000, maxOut: 8_192, threshold: 900_000 },
  ])("window $W with the default output reservation → $threshold", ({ W, maxOut, threshold }) => {
    expect(defaultMaxOutputTokens(W)).toBe(maxOut);
    expect(computeThreshold(W, maxOut)).toBe(threshold);
  });

  it.each([
    { W: 8_000, maxOut: 4_000, threshold: 3_840 }, // the output reservation binds: 8000 − 4000 − 160
    { W: 128_000, maxOut: 32_000, threshold: 95_000 },
    { W: 200_000, maxOut: 64_000, threshold: 135_000 },
    { W: 1_000_000, maxOut: 128_000, threshold: 871_000 }, // the safety margin is capped at 1000
  ])("window $W with $maxOut reserved for output → $threshold", ({ W, maxOut, threshold }) => {
    expect(computeThreshold(W, maxOut)).toBe(threshold);
  });

  it("leaves a compaction room for the working set and growth at every size", () => {
    for (const W of [6_000, 8_000, 128_000, 200_000, 1_000_000]) {
      const threshold = computeThreshold(W, defaultMaxOutputTokens(W));
      const b = compactionBudget({ threshold, maxOutputTokens: defaultMaxOutputTokens(W), fixedTokens: 1_400 });
      expect(b.summaryMaxChars).toBe(b.summaryTokens * 4);
      expect(b.summaryTokens).toBeLessThanOrEqual(defaultMaxOutputTokens(W));
      // Summary and kept working set take at most 60% of what the fixed parts leave: the rest is room to grow.
      expect(b.summaryTokens + b.keepTokens).toBeLessThanOrEqual(0.6 * (threshold - b.fixedTokens));
      expect(b.fitTokens).toBeGreaterThan(b.keepTokens);
    }
  });
});

describe("the estimate", () => {
  const tools: ToolSpec[] = [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }];
  const system = "You are an agent.";

  function log() {
    const b = newLog();
    b.hidden({ stateDelta: { session: {} } });
    b.user("start the work");
    for (let i = 0; i < 5; i++) b.step("read_file", { path: `f${i}` }, { content: "x".repeat(400) });
    return b;
  }
  const whole = (events: ReturnType<typeof log>["events"]) =>
    Math.ceil(JSON.stringify({ messages: buildModelMessages({ system, summary: null, events }), tools }).length / 4);

  it("is ~chars/4 of the whole request when no usage was reported", () => {
    const b = log();
    const messages = buildModelMessages({ system, summary: null, events: b.visible });
    const est = estimateContextTokens({
      system,
      tools,
      checkpoint: null,
      events: b.visible,
      messages,
      lastUsage: null,
      lastRequestCheckpointId: undefined,
    });
    expect(est).toBe(whole(b.visible));
  });

  it("starts from the provider's report for the prefix it saw and adds ~chars/4 for what came after", () => {
    const b = log();
    const seenThrough = b.events.at(-1)!.seq;
    const before = buildModelMessages({ system, summary: null, events: b.visible });
    b.step("read_file", { path: "g" }, { content: "y".repeat(2_000) });
    const messages = buildModelMessages({ system, summary: null, events: b.visible });
    const grown = JSON.stringify({ messages, tools }).length - JSON.stringify({ messages: before, tools }).length;
    const est = estimateContextTokens({
      system,
      tools,
      checkpoint: null,
      events: b.visible,
      messages,
      lastUsage: { requestSeq: 99, throughSeq: seenThrough, inputTokens: 10_000 },
      lastRequestCheckpointId: null,
    });
    expect(est).toBe(10_000 + Math.ceil(grown / 4));
    expect(grown).toBeGreaterThan(2_000);
  });

  it("ignores a report made on another checkpoint (its prefix is not this one)", () => {
    const b = log();
    const messages = buildModelMessages({ system, summary: null, events: b.visible });
    const est = estimateContextTokens({
      system,
      tools,
      checkpoint: null,
      events: b.visible,
      messages,
      lastUsage: { requestSeq: 9, throughSeq: b.events.at(-1)!.seq, inputTokens: 50_000 },
      lastRequestCheckpointId: "ckpt_old",
    });
    expect(est).toBe(whole(b.visible));
  });

  it("never reads cumulative usage: a session with a huge total estimates from its last report", () => {
    const b = log();
    const through = b.events.at(-1)!.seq;
    b.hidden({ modelRequest: { throughSeq: through, checkpointId: null, estimatedTokens: 0, requestDigest: "d" } });
    const requestSeq = b.events.at(-1)!.seq;
    const view = {
      contextEventsAfter: (after: number) =>
        b.events.filter((e) => e.seq > after && (e.modelVisibility === "visible" || e.actions?.modelRequest)),
    };
    const store = {
      get: (seq: number) => b.events.find((e) => e.seq === seq) ?? null,
      head: () => ({ highWater: b.events.length, headDigest: b.events.at(-1)!.digest }),
      digestAt: (seq: number) => b.events.find((e) => e.seq === seq)?.digest ?? null,
    } as unknown as EventStore;
    // No checkpoint events in this log: the checkpoint lookup finds none.
    const sql = { exec: () => ({ toArray: () => [] }) } as unknown as SqlLike;
    const summary = {
      usage: { inputTokens: 5_000_000, outputTokens: 900_000, cachedInputTokens: 4_000_000 },
      lastUsage: { requestSeq, throughSeq: through, inputTokens: 3_000 },
      highWater: b.events.length,
    } as unknown as SessionSummary;
    const model = { provider: "openai", name: "m", contextWindow: 8_000, maxOutputTokens: 2_000 } as const;
    const ctx = buildNextContext({ store, view, sql }, { summary, model, system, tools });
    expect(ctx.estimatedTokens).toBe(3_000);
    expect(ctx.threshold).toBe(5_840);
    expect(ctx.checkpoint).toBeNull();
    expect(ctx.rawFromSeq).toBe(1);
    expect(ctx.messages).toEqual(buildModelMessages({ system, summary: null, events: b.visible }));
  });
});
