import { describe, expect, it } from "vitest";
import { utf8Chunks } from "../../../src/log/blobs";

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
};

describe("utf8Chunks", () => {
  const texts = [
    "",
    "a",
    "héllo wörld",
    "€€€€€",
    "𝄞a𝄞bb𝄞",
    "x\ud800y",
    "ab\ud83d",
    "a".repeat(1000) + "é𝄞".repeat(300),
  ];
  for (const text of texts)
    it(`gives the bytes of TextEncoder.encode in exact chunks: ${JSON.stringify(text.slice(0, 12))}`, () => {
      const want = new TextEncoder().encode(text);
      for (const size of [1, 2, 3, 4, 5, 7, 64, 4096]) {
        const parts = Array.from(utf8Chunks(text, size), (c) => c.slice()); // a chunk is valid until the next
        expect(concat(parts)).toEqual(want);
        for (const p of parts.slice(0, -1)) expect(p.byteLength).toBe(size);
      }
    });
});
