import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ownerHash, RateWindow } from "../../src/session/ownership";

describe("ownerHash (CONTRACT §7.26)", () => {
  it("is sha256_hex of owner:<sessionId>:<principal>, computed independently here", () => {
    const id = "ab".repeat(32);
    const principal = "cd".repeat(32);
    const expected = createHash("sha256").update(`owner:${id}:${principal}`, "utf8").digest("hex");
    expect(ownerHash(id, principal)).toBe(expected);
    // Bound to the session: the same principal owns another session under another hash.
    expect(ownerHash("ef".repeat(32), principal)).not.toBe(expected);
  });
});

describe("RateWindow (CONTRACT §7.25: per principal, per minute, approximate)", () => {
  const t0 = Date.UTC(2026, 11, 1, 12, 0, 0);

  it("admits `limit` requests a minute per principal and refuses the next; a new minute starts again", () => {
    const w = new RateWindow();
    expect([1, 2, 3].map((i) => w.hit("p", 2, t0 + i))).toEqual([true, true, false]);
    expect(w.hit("q", 2, t0 + 4)).toBe(true);
    expect(w.hit("p", 2, t0 + 60_000)).toBe(true);
  });
});
