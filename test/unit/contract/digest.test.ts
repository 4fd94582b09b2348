import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argsDigest, canonical, sha256Text } from "../../../src/contract";
import { sha256Lines } from "../../../src/contract/sha256";
import { argsDigestOf } from "../../../src/runtime/drafts";

const nodeSha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("sha256Text (the browser's hash)", () => {
  it("agrees with node:crypto across block boundaries and multi-byte text", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 70_000])
      expect(sha256Text("a".repeat(n)), `length ${n}`).toBe(nodeSha("a".repeat(n)));
    for (const t of ["abc", "héllo wörld", "日本語", "😀 emoji", '{"path":"a.txt","content":"x"}'])
      expect(sha256Text(t), t).toBe(nodeSha(t));
  });
  it("agrees with node:crypto on 2,000 seeded texts, a long one before each short one (its buffer is reused)", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    // ASCII, Latin-1, CJK, astral pairs, and lone surrogates (both encode those as U+FFFD).
    const pieces = ["a", "Z", "{", '"', "\\n", "é", "ß", "日", "語", "😀", "\ud800", "\udfff", "\u0000", "~"];
    const text = (max: number) => Array.from({ length: rand(max) }, () => pieces[rand(pieces.length)]).join("");
    for (let i = 0; i < 1_000; i++) {
      const long = text(3_000);
      const short = text(70);
      expect(sha256Text(long)).toBe(nodeSha(long));
      expect(sha256Text(short), JSON.stringify(short)).toBe(nodeSha(short));
      expect(sha256Lines(short, long)).toBe(nodeSha(`${short}\n${long}`));
    }
  });
  it("is the known digest of the empty string and of abc", () => {
    expect(sha256Text("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Text("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("argsDigest: one definition for the Worker and the console", () => {
  it("hashes the canonical JSON of the args, whichever hash it is given", () => {
    const args = { url: "https://x.test/", method: "POST", headers: { b: "2", a: "1" } };
    expect(argsDigest(args)).toBe(nodeSha(canonical(args)));
    expect(argsDigest(args)).toBe(argsDigestOf(args));
    expect(argsDigest(undefined)).toBe(nodeSha("null"));
  });
  it("takes a blob's own sha256 for args kept as a blob", () => {
    const sha256 = "f".repeat(64);
    expect(argsDigest({ $blob: { sha256, bytes: 9, mediaType: "application/json" } })).toBe(sha256);
  });
});

describe("src/contract", () => {
  it("imports nothing outside itself but zod", () => {
    const dir = join(__dirname, "../../../src/contract");
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), "utf8");
      for (const m of text.matchAll(/from\s+"([^"]+)"/g))
        expect([f, m[1]]).toSatisfy(([, s]) => s === "zod" || /^\.\/[^/]+$/.test(s));
    }
  });
});
