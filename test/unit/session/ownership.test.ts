import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ownerHash } from "../../../src/session/admission";
import { SlidingMinute } from "../../../src/session/rate";

describe("ownerHash (docs/API.md §7.26)", () => {
  it("is sha256_hex of owner:<sessionId>:<principal>, computed independently here", () => {
    const id = "ab".repeat(32);
    const principal = "cd".repeat(32);
    const expected = createHash("sha256").update(`owner:${id}:${principal}`, "utf8").digest("hex");
    expect(ownerHash(id, principal)).toBe(expected);
    // Bound to the session: the same principal owns another session under another hash.
    expect(ownerHash("ef".repeat(32), principal)).not.toBe(expected);
  });
});

describe("SlidingMinute (docs/API.md#authentication-and-errors: per principal, the last 60 s)", () => {
  const t0 = Date.UTC(2026, 11, 1, 12, 0, 0);

  it("admits `limit` requests in any 60 s per principal and refuses the next; others are not affected", () => {
    const w = new SlidingMinute();
    expect([1, 2, 3].map((i) => w.take("p", 2, t0 + i))).toEqual([true, true, false]);
    expect(w.take("q", 2, t0 + 4)).toBe(true);
  });

  it("a minute boundary does not reset the count: 2 just before it and 1 just after are 3 in a minute", () => {
    const w = new SlidingMinute();
    expect(w.take("p", 2, t0 - 500)).toBe(true);
    expect(w.take("p", 2, t0 - 100)).toBe(true);
    expect(w.take("p", 2, t0 + 100)).toBe(false);
  });

  it("a request counts for 60 to 61 s; a refused one is not counted", () => {
    const w = new SlidingMinute();
    expect(w.take("p", 1, t0 + 999)).toBe(true);
    // Refused again and again within its minute: none of these is counted ...
    for (let s = 1; s < 60; s++) expect(w.take("p", 1, t0 + s * 1000)).toBe(false);
    // ... so the next second after the window admits one again.
    expect(w.take("p", 1, t0 + 60_000)).toBe(true);
    expect(w.take("p", 1, t0 + 60_500)).toBe(false);
  });
});
