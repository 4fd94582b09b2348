import { describe, expect, it } from "vitest";
import { INLINE_EVENT_LIMIT, payloadOverLimit } from "../../../src/log/event-rows";

/** docs/API.md §3: a payload whose strings alone pass the inline limit goes to the blob store unserialized. */
describe("payloadOverLimit", () => {
  const text = (n: number) => ({ content: { type: "text" as const, text: "x".repeat(n) } });
  it("a text at the limit stays, one char more is over", () => {
    expect(payloadOverLimit(text(INLINE_EVENT_LIMIT))).toBe(false);
    expect(payloadOverLimit(text(INLINE_EVENT_LIMIT + 1))).toBe(true);
  });
  it("counts every string of nested args and responses, and nothing else", () => {
    const half = "y".repeat(INLINE_EVENT_LIMIT / 2);
    const call = (args: unknown) => ({ content: { type: "functionCall" as const, callId: "c", name: "t", args } });
    expect(payloadOverLimit(call({ a: half, b: [half] }))).toBe(false);
    expect(payloadOverLimit(call({ a: half, b: [1, true, null, { c: `${half}z` }] }))).toBe(true);
    const response = { type: "functionResponse" as const, callId: "c", name: "t", status: "ok" as const };
    expect(payloadOverLimit({ content: { ...response, response: [half, half, "!"] } })).toBe(true);
    expect(payloadOverLimit({ content: { ...response, response: { n: 1e9, keys: half } } })).toBe(false);
    expect(payloadOverLimit({})).toBe(false);
  });
});
