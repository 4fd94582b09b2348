/**
 * A turn's trace (docs/API.md#traces, OTLP/JSON) as the timeline's spans: `invoke_agent` is the
 * turn, `chat` a model call, `execute_tool` a tool call; a span's events (failed attempts,
 * recoveries) become marks. Pure; tested in Node.
 */
import type { OtlpAttribute, OtlpTrace } from "../../src/contract/trace";
import type { Mark, Span, SpanKind } from "./fold";

export type { OtlpTrace } from "../../src/contract/trace";

const KINDS: Record<string, SpanKind> = { invoke_agent: "turn", chat: "model", execute_tool: "tool" };

const ms = (nanos: string | number | undefined) =>
  nanos === undefined ? Number.NaN : Number(BigInt(nanos) / 1_000_000n);

function attr(kv: OtlpAttribute[] | undefined, key: string): string | undefined {
  const v = kv?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return String(v.intValue);
  if ("boolValue" in v) return String(v.boolValue);
  return undefined;
}

/** The spans and marks of one trace; spans whose kind the timeline has no lane for are left out. */
export function traceSpans(trace: OtlpTrace): { spans: Span[]; marks: Mark[] } {
  const spans: Span[] = [];
  const marks: Mark[] = [];
  const all = (trace.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []));
  for (const s of all) {
    const op = attr(s.attributes, "gen_ai.operation.name") ?? s.name?.split(" ")[0] ?? "";
    const kind = KINDS[op];
    if (!kind) continue;
    const start = ms(s.startTimeUnixNano);
    const end = ms(s.endTimeUnixNano);
    if (!Number.isFinite(start)) continue;
    const tool = attr(s.attributes, "gen_ai.tool.name");
    const outcome =
      attr(s.attributes, "highwater.tool.status") ??
      attr(s.attributes, "gen_ai.response.finish_reasons") ??
      (s.status?.code === 2 ? "error" : undefined);
    spans.push({
      kind,
      key: `trace:${s.spanId ?? spans.length}`,
      label: kind === "tool" && tool ? tool : (s.name ?? op),
      start,
      ...(Number.isFinite(end) ? { end: Math.max(start, end) } : {}),
      ...(outcome ? { outcome } : {}),
      seq: spans.length + 1,
    });
    for (const ev of s.events ?? []) {
      const at = ms(ev.timeUnixNano);
      if (!Number.isFinite(at)) continue;
      const name = ev.name ?? "event";
      marks.push({ kind: /recover/i.test(name) ? "recovery" : "error", at, label: `${s.name ?? op}: ${name}`, seq: 0 });
    }
  }
  return { spans, marks };
}
