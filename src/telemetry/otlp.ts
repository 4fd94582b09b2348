/** OTLP/JSON building blocks for traces built from the log (docs/API.md#traces): derived ids, times, attributes. */
import type { OtlpAttribute } from "../contract/trace";
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
