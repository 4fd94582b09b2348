/**
 * docs/API.md#traces: the trace is valid OTLP. Checked with the OpenTelemetry project's own
 * generated protobuf types (`@opentelemetry/otlp-transformer`): the JSON (hex ids, as OTLP/JSON
 * has them) is verified, encoded to protobuf, decoded, and must come back field for field, so
 * a misnamed or mistyped field (which protobuf would drop or reject) fails here.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { buildTurnTrace } from "../../../src/telemetry/spans";
import { newLog } from "../support/fixtures";

const require = createRequire(import.meta.url);
const root = require("@opentelemetry/otlp-transformer/build/src/generated/root.js");
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

/** OTLP/JSON → the protobuf object form: ids are hex in OTLP/JSON, bytes in protobuf. */
function toProtoObject(value: unknown, key = ""): unknown {
  if (ID_FIELDS.has(key) && typeof value === "string") return Buffer.from(value, "hex");
  if (Array.isArray(value)) return value.map((v) => toProtoObject(v));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toProtoObject(v, k)]));
  return value;
}

/** The decoded message back in OTLP/JSON form (hex ids, 64-bit numbers as in the input). */
function fromProto(message: unknown): unknown {
  const obj = Request.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false });
  const back = (v: unknown, key = ""): unknown => {
    if (ID_FIELDS.has(key) && typeof v === "string") return Buffer.from(v, "base64").toString("hex");
    if (key === "intValue" && typeof v === "string") return Number(v);
    if (Array.isArray(v)) return v.map((x) => back(x));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, back(x, k)]));
    return v;
  };
  return back(obj);
}

/** Drops what protobuf does not carry: empty lists (proto3 defaults). */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (Array.isArray(v) && v.length === 0) continue;
      out[k] = withoutDefaults(v);
    }
    return out;
  }
  return value;
}

function turnWithEverything() {
  const ev = newLog();
  ev.user("hi");
  ev.modelRequest();
  ev.stateDelta(
    {
      modelAttempt: {
        invocationId: "inv1",
        attempt: 1,
        code: "network",
        message: "reset",
        retryAt: "2025-01-01T00:01:00.000Z",
      },
    },
    "runtime",
  );
  ev.modelCall(
    "c1",
    "read_file",
    { path: "x" },
    {
      tokenUsage: { inputTokens: 10, outputTokens: 2 },
      stateDelta: { finishReason: "tool-calls" },
    },
  );
  ev.dispatch("c1", "read");
  ev.stateDelta({ runStarted: { runId: "r2", cause: "recovery" } }, "runtime");
  ev.response("c1", "ok", { text: "x" }, { toolRecovery: { callId: "c1", strategy: "rerun" } });
  ev.stateDelta({ recoveryNotice: { atSeq: 8, rerun: ["c1"], needsReview: [], reissued: [] } }, "runtime");
  ev.modelRequest();
  ev.modelText("ok", { tokenUsage: { inputTokens: 20, outputTokens: 3 }, stateDelta: { finishReason: "stop" } });
  ev.turnClose("completed");
  return ev.events;
}

describe("the trace is OTLP", () => {
  it("verifies against the OTLP protobuf types and survives an encode/decode round trip whole", () => {
    const trace = buildTurnTrace(turnWithEverything(), {
      sessionId: "s1",
      turnId: "t1",
      serviceName: "highwater",
      model: { provider: "openai", name: "m" },
    });
    const spans = trace.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.length).toBe(4);
    const object = toProtoObject(trace);
    const message = Request.fromObject(object);
    expect(Request.verify(message)).toBeNull();
    const bytes = Request.encode(message).finish();
    const decoded = Request.decode(bytes);
    expect(decoded.resourceSpans[0].scopeSpans[0].spans).toHaveLength(spans.length);
    expect(fromProto(decoded)).toEqual(withoutDefaults(trace));
  });
});
