import { sha256Hex } from "../log/hash";

/** The idempotency key of a tool call, recorded at dispatch and sent to the external system (docs/API.md#tools-from-outside). */
export function idempotencyKeyFor(sessionId: string, callId: string): string {
  return `hw_${sha256Hex(`${sessionId}:${callId}`).slice(0, 32)}`;
}
