/**
 * `GET /v1/sessions/:id/trace` (docs/API.md#traces): a turn's OpenTelemetry trace in OTLP/JSON,
 * the body of an OTLP/HTTP `ExportTraceServiceRequest` (ids in hex, times in nanoseconds as
 * decimal strings).
 */
export type OtlpValue =
  | { stringValue: string }
  | { intValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpValue[] } };
export type OtlpAttribute = { key: string; value: OtlpValue };
export type OtlpSpanEvent = { timeUnixNano: string; name: string; attributes: OtlpAttribute[] };
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client (OTLP `SpanKind`). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: OtlpSpanEvent[];
  /** 0 unset, 2 error (OTLP `StatusCode`). */
  status: { code: 0 | 2; message?: string };
};
export type OtlpTrace = {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
};
