/**
 * docs/API.md#traces: a turn's trace is built from its events alone, with the GenAI attributes,
 * derived ids (a rebuild is byte-identical), failed attempts and recoveries as span events, and
 * nothing of what was said or sent.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import { requestBodies } from "../../../src/telemetry/otlp";
import { buildTurnTrace, type OtlpAttribute, type OtlpSpan } from "../../../src/telemetry/spans";
import { newLog } from "../support/fixtures";

const OPTS = { sessionId: "s1", turnId: "t1", serviceName: "highwater", model: { provider: "openai", name: "gpt-x" } };

/** A turn with a failed attempt, a tool call recovered after a restart, and a second answer. */
function recoveredTurn(): Event[] {
  const ev = newLog();
  ev.created();
  ev.user("please use sk-live-SECRET123 to deploy");
  ev.modelRequest();
  ev.stateDelta(
    {
      modelAttempt: {
        invocationId: "inv1",
        attempt: 1,
        code: "http_429",
        message: "rate limited",
        retryAt: "2025-01-01T00:00:10.000Z",
      },
    },
    "runtime",
  );
  ev.modelCall(
    "c1",
    "write_file",
    { path: "a.txt", content: "Bearer TOPSECRET" },
    {
      tokenUsage: { inputTokens: 120, outputTokens: 7 },
      stateDelta: { finishReason: "tool-calls" },
    },
  );
  ev.dispatch("c1", "write");
  ev.stateDelta({ runStarted: { runId: "r2", cause: "recovery" } }, "runtime");
  ev.response(
    "c1",
    "interrupted",
    { note: "may or may not have happened" },
    {
      toolRecovery: { callId: "c1", strategy: "interrupted" },
    },
  );
  ev.stateDelta({ recoveryNotice: { atSeq: 9, rerun: [], needsReview: ["c1"], reissued: [] } }, "runtime");
  ev.modelRequest();
  ev.modelText("done, the file says Bearer TOPSECRET", {
    tokenUsage: { inputTokens: 200, outputTokens: 11 },
    stateDelta: { finishReason: "stop" },
    endInvocation: true,
  });
  ev.turnClose("completed");
  ev.turn("t2");
  ev.user("next turn");
  return ev.events;
}

const attr = (span: OtlpSpan, key: string) => {
  const a = span.attributes.find((x: OtlpAttribute) => x.key === key);
  if (!a) return undefined;
  const v = a.value as Record<string, unknown>;
  if ("arrayValue" in v)
    return (v.arrayValue as { values: { stringValue: string }[] }).values.map((x) => x.stringValue);
  return Object.values(v)[0];
};
const spansOf = (events: Event[], opts = OPTS) => buildTurnTrace(events, opts).resourceSpans[0]!.scopeSpans[0]!.spans;
const ns = (iso: string) => String(Date.parse(iso) * 1_000_000);

describe("buildTurnTrace", () => {
  it("one invoke_agent span per turn, from its first event to its turnClose, with the conversation id", () => {
    const events = recoveredTurn();
    const spans = spansOf(events);
    const root = spans.filter((s) => attr(s, "gen_ai.operation.name") === "invoke_agent");
    expect(root).toHaveLength(1);
    expect(root[0]!.parentSpanId).toBeUndefined();
    expect(root[0]!.startTimeUnixNano).toBe(ns(events[1]!.at));
    const close = events.find((e) => e.actions?.turnClose)!;
    expect(root[0]!.endTimeUnixNano).toBe(ns(close.at));
    expect(attr(root[0]!, "gen_ai.conversation.id")).toBe("s1");
    expect(attr(root[0]!, "highwater.turn.outcome")).toBe("completed");
    // The next turn's events are not in this trace.
    expect(spans.every((s) => BigInt(s.endTimeUnixNano) <= BigInt(ns(close.at)))).toBe(true);
  });

  it("a chat span per model call with provider, model, usage, finish reasons and one event per failed attempt", () => {
    const spans = spansOf(recoveredTurn());
    const chats = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
    expect(chats).toHaveLength(2);
    const [first, second] = chats;
    expect(first!.name).toBe("chat gpt-x");
    expect(attr(first!, "gen_ai.provider.name")).toBe("openai");
    expect(attr(first!, "gen_ai.request.model")).toBe("gpt-x");
    expect(attr(first!, "gen_ai.usage.input_tokens")).toBe(120);
    expect(attr(first!, "gen_ai.usage.output_tokens")).toBe(7);
    expect(attr(first!, "gen_ai.response.finish_reasons")).toEqual(["tool-calls"]);
    expect(first!.events.map((e) => e.name)).toEqual(["highwater.model_attempt_failed"]);
    expect(first!.events[0]!.attributes).toContainEqual({ key: "error.type", value: { stringValue: "http_429" } });
    expect(first!.events[0]!.attributes).toContainEqual({ key: "highwater.attempt", value: { intValue: 1 } });
    expect(attr(second!, "gen_ai.response.finish_reasons")).toEqual(["stop"]);
    expect(second!.events).toEqual([]);
    const root = spans[0]!;
    expect(chats.every((c) => c.parentSpanId === root.spanId && c.traceId === root.traceId)).toBe(true);
    expect(attr(root, "gen_ai.usage.input_tokens")).toBe(320);
  });

  it("an execute_tool span per call with name, call id, effect, status and an event for its recovery", () => {
    const spans = spansOf(recoveredTurn());
    const tools = spans.filter((s) => attr(s, "gen_ai.operation.name") === "execute_tool");
    expect(tools).toHaveLength(1);
    const t = tools[0]!;
    expect(t.name).toBe("execute_tool write_file");
    expect(attr(t, "gen_ai.tool.name")).toBe("write_file");
    expect(attr(t, "gen_ai.tool.call.id")).toBe("c1");
    expect(attr(t, "highwater.tool.effect")).toBe("write");
    expect(attr(t, "highwater.tool.status")).toBe("interrupted");
    expect(t.status.code).toBe(2);
    expect(t.events).toEqual([
      expect.objectContaining({
        name: "highwater.tool_recovery",
        attributes: [{ key: "highwater.recovery.strategy", value: { stringValue: "interrupted" } }],
      }),
    ]);
  });

  it("recoveries are events on the turn span: the recovery run and its notice", () => {
    const root = spansOf(recoveredTurn())[0]!;
    expect(root.events.map((e) => e.name)).toEqual(["highwater.recovery", "highwater.recovery_notice"]);
    expect(root.events[1]!.attributes).toContainEqual({
      key: "highwater.recovery.needs_review",
      value: { arrayValue: { values: [{ stringValue: "c1" }] } },
    });
  });

  it("ids are derived from session, turn and seq: a rebuild is byte-identical, another turn another trace", () => {
    const a = JSON.stringify(buildTurnTrace(recoveredTurn(), OPTS));
    const b = JSON.stringify(buildTurnTrace(structuredClone(recoveredTurn()), OPTS));
    expect(a).toBe(b);
    const spans = spansOf(recoveredTurn());
    const expected = createHash("sha256").update("trace:s1:t1").digest("hex").slice(0, 32);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([expected]));
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expect(spans.every((s) => /^[0-9a-f]{16}$/.test(s.spanId))).toBe(true);
    const other = spansOf(recoveredTurn(), { ...OPTS, turnId: "t2" });
    expect(other[0]!.traceId).not.toBe(expected);
    expect(spansOf(recoveredTurn(), { ...OPTS, sessionId: "s9" })[0]!.traceId).not.toBe(expected);
  });

  it("no text, argument or result of the turn appears in the trace", () => {
    const json = JSON.stringify(buildTurnTrace(recoveredTurn(), OPTS));
    expect(json).not.toContain("SECRET");
    expect(json).not.toContain("a.txt");
    expect(json).not.toContain("may or may not");
  });

  it("a failed turn's span is an error; an unknown turn has no spans", () => {
    const ev = newLog();
    ev.user("hi");
    ev.modelRequest();
    ev.error("model_failed", "gave up after 5 attempts");
    ev.turnClose("failed");
    const spans = spansOf(ev.events);
    expect(spans[0]!.status.code).toBe(2);
    expect(spans[1]!.status.code).toBe(2);
    expect(spansOf(ev.events, { ...OPTS, turnId: "nope" })).toEqual([]);
  });

  it("an open turn's span ids stay the same as it goes on: a call's span is named by its call, not its dispatch", () => {
    const events = recoveredTurn();
    const dispatchAt = events.findIndex((e) => e.actions?.toolDispatch);
    // Built while the call is asked for but not yet dispatched, then after: the same ids.
    const early = spansOf(events.slice(0, dispatchAt));
    const later = spansOf(events.slice(0, dispatchAt + 1));
    const idsOf = (spans: OtlpSpan[]) => spans.map((x) => x.spanId);
    expect(idsOf(later)).toEqual(idsOf(early));
    expect(idsOf(spansOf(events))).toEqual(expect.arrayContaining(idsOf(early)));
  });

  it("no message of a failed attempt or an error is in the trace, only their codes", () => {
    const ev = newLog();
    ev.user("hi");
    ev.modelRequest();
    ev.stateDelta(
      { modelAttempt: { invocationId: "inv1", attempt: 1, code: "http_500", message: "upstream said: hi Bob" } },
      "runtime",
    );
    ev.error("model_failed", "gave up: upstream said hi Bob");
    ev.turnClose("failed");
    const json = JSON.stringify(buildTurnTrace(ev.events, OPTS));
    expect(json).not.toContain("Bob");
    expect(json).toContain("http_500");
    expect(json).toContain("model_failed");
  });

  it("reads its events once, as they come: a generator over the log is enough", () => {
    const events = recoveredTurn();
    function* once() {
      yield* events;
    }
    expect(JSON.stringify(buildTurnTrace(once(), OPTS))).toBe(JSON.stringify(buildTurnTrace(events, OPTS)));
  });
});

describe("requestBodies", () => {
  const trace = () => buildTurnTrace(recoveredTurn(), OPTS);

  it("a trace that fits is one body, byte for byte the trace", () => {
    expect(requestBodies(trace(), 4 * 1024 * 1024)).toEqual([JSON.stringify(trace())]);
  });

  it("a larger one is split by spans into bodies under the limit that together hold every span once", () => {
    const whole = trace();
    const limit = Math.floor(JSON.stringify(whole).length * 0.6);
    const bodies = requestBodies(whole, limit);
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(new TextEncoder().encode(b).length).toBeLessThanOrEqual(limit);
    const parsed = bodies.map((b) => JSON.parse(b));
    const spans = parsed.flatMap((p) => p.resourceSpans[0].scopeSpans[0].spans);
    expect(spans).toEqual(whole.resourceSpans[0]!.scopeSpans[0]!.spans);
    for (const p of parsed) {
      expect(p.resourceSpans[0].resource).toEqual(whole.resourceSpans[0]!.resource);
      expect(p.resourceSpans[0].scopeSpans[0].scope).toEqual(whole.resourceSpans[0]!.scopeSpans[0]!.scope);
    }
  });
});
