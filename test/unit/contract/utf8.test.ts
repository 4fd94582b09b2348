import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../../../src/contract";

const encoded = (s: string) => new TextEncoder().encode(s).byteLength;

describe("utf8Bytes counts what TextEncoder would write", () => {
  it.each([
    ["", 0],
    ["ascii", 5],
    ["é", 2],
    ["€", 3],
    ["😀", 4],
    ["a😀b", 6],
    ["\ud83d", 3], // a lone high surrogate is U+FFFD
    ["\ude00", 3], // a lone low surrogate too
    ["\ud83d\ud83d\ude00", 7], // a lone high surrogate, then a pair
    ["x\ud83d", 4], // a high surrogate at the very end
  ])("%j is %i bytes", (s, n) => {
    expect(utf8Bytes(s)).toBe(n);
    expect(encoded(s)).toBe(n);
  });

  it("agrees with TextEncoder on random strings of every code unit range", () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let round = 0; round < 500; round++) {
      let s = "";
      for (let i = 0; i < 40; i++) {
        const pick = next() % 5;
        const unit = [0x41, 0x3b1, 0x4e00, 0xd800 + (next() % 0x400), 0xdc00 + (next() % 0x400)][pick]!;
        s += String.fromCharCode(unit);
      }
      expect(utf8Bytes(s)).toBe(encoded(s));
    }
  });
});
