/**
 * The console's words and the trace it draws: a user message is labelled by its source, counts
 * agree with their number, a tick label never runs past the chart, and a turn's OTLP/JSON
 * trace (docs/API.md#traces) becomes the timeline's spans.
 */
import { describe, expect, it } from "vitest";
import { authorLabel, plural } from "../../../ui/src/format";
import { type OtlpTrace, traceSpans } from "../../../ui/src/trace";

describe("console words", () => {
  it("a message from the inbox or a trigger is labelled by its source, not as the user", () => {
    expect(authorLabel("user", "inbox:ci")).toBe("inbox · ci");
    expect(authorLabel("user", "trigger:nightly")).toBe("trigger · nightly");
    expect(authorLabel("user", "http")).toBe("You");
    expect(authorLabel("user", undefined)).toBe("You");
    expect(authorLabel("assistant", "inbox:ci")).toBe("Assistant");
  });

  it("one event, two events", () => {
    expect(plural(1, "event")).toBe("1 event");
    expect(plural(2, "event")).toBe("2 events");
    expect(plural(0, "entry", "entries")).toBe("0 entries");
  });
});

describe("traceSpans", () => {
  const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
  const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });
  const span = (
    name: string,
    op: string,
    start: number,
    end: number,
    attributes: { key: string; value: { stringValue: string } }[] = [],
    events: { name: string; timeUnixNano: string }[] = [],
  ) => ({
    spanId: name,
    name,
    startTimeUnixNano: ns(start),
    endTimeUnixNano: ns(end),
    attributes: [attr("gen_ai.operation.name", op), ...attributes],
    events,
  });

  it("the turn, its model calls and its tool calls become spans; span events become marks", () => {
    const t0 = Date.parse("2026-12-01T10:00:00Z");
    const trace = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span("invoke_agent highwater", "invoke_agent", t0, t0 + 5000),
                span(
                  "chat demo",
                  "chat",
                  t0 + 10,
                  t0 + 900,
                  [],
                  [{ name: "gen_ai.attempt.failed", timeUnixNano: ns(t0 + 400) }],
                ),
                span("execute_tool write_file", "execute_tool", t0 + 1000, t0 + 1200, [
                  attr("gen_ai.tool.name", "write_file"),
                  attr("highwater.tool.status", "interrupted"),
                ]),
                span("something else", "embeddings", t0, t0 + 1),
              ],
            },
          ],
        },
      ],
    };
    const { spans, marks } = traceSpans(trace as unknown as OtlpTrace);
    expect(spans.map((s) => [s.kind, s.label, s.start - t0, (s.end ?? 0) - t0])).toEqual([
      ["turn", "invoke_agent highwater", 0, 5000],
      ["model", "chat demo", 10, 900],
      ["tool", "write_file", 1000, 1200],
    ]);
    expect(spans[2]!.outcome).toBe("interrupted");
    expect(marks).toEqual([expect.objectContaining({ at: t0 + 400, kind: "error" })]);
  });

  it("an empty or foreign document gives no spans", () => {
    // A foreign or partial document (not one of ours) is read leniently.
    expect(traceSpans({} as OtlpTrace)).toEqual({ spans: [], marks: [] });
    expect(
      traceSpans({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: "x" }] }] }] } as unknown as OtlpTrace).spans,
    ).toEqual([]);
  });
});
