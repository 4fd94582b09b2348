/** OTLP/JSON building blocks for traces built from the log (docs/API.md#traces): derived ids, times, attributes. */
import type { OtlpAttribute, OtlpTrace } from "../contract/trace";
import { sha256Hex } from "../log/hash";

export const SCOPE = { name: "highwater", version: "1" };

/** 32 hex: the turn's trace id. */
export function traceIdOf(sessionId: string, turnId: string): string {
  return sha256Hex(`trace:${sessionId}:${turnId}`).slice(0, 32);
}

/** 16 hex: a span's id, from what it is and the seq of its first event. */
export function spanIdOf(kind: string, sessionId: string, turnId: string, seq: number): string {
  return sha256Hex(`${kind}:${sessionId}:${turnId}:${seq}`).slice(0, 16);
}

/** An event's ISO-8601 time as OTLP nanoseconds since the epoch. */
export function nanos(at: string): string {
  return (BigInt(Date.parse(at)) * 1_000_000n).toString();
}

export const str = (key: string, v: string): OtlpAttribute => ({ key, value: { stringValue: v } });
export const int = (key: string, v: number): OtlpAttribute => ({ key, value: { intValue: v } });
export const strs = (key: string, v: string[]): OtlpAttribute => ({
  key,
  value: { arrayValue: { values: v.map((s) => ({ stringValue: s })) } },
});

/**
 * A trace as OTLP/HTTP request bodies of at most `maxBytes` each (one span larger than that goes
 * alone): the whole trace in one body when it fits, else its spans spread over several, each
 * with the same resource and scope. The collector joins them by their trace id.
 */
export function requestBodies(trace: OtlpTrace, maxBytes: number): string[] {
  const whole = JSON.stringify(trace);
  if (utf8Bytes(whole) <= maxBytes) return [whole];
  const { resource, scopeSpans } = trace.resourceSpans[0]!;
  const scope = scopeSpans[0]!.scope;
  const bodyOf = (spans: string[]) =>
    `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${JSON.stringify(scope)},"spans":[${spans.join(",")}]}]}]}`;
  const overhead = utf8Bytes(bodyOf([]));
  const bodies: string[] = [];
  let batch: string[] = [];
  let size = overhead;
  for (const span of scopeSpans.flatMap((s) => s.spans)) {
    const json = JSON.stringify(span);
    const bytes = utf8Bytes(json) + 1;
    if (batch.length > 0 && size + bytes > maxBytes) {
      bodies.push(bodyOf(batch));
      batch = [];
      size = overhead;
    }
    batch.push(json);
    size += bytes;
  }
  if (batch.length > 0) bodies.push(bodyOf(batch));
  return bodies;
}

const encoder = new TextEncoder();
function utf8Bytes(s: string): number {
  return encoder.encode(s).length;
}
