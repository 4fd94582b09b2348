import { describe, expect, it } from "vitest";
import { canonical, chainDigest, GENESIS_DIGEST, verifyInChunks, verifyRows } from "../../../src/log";

function rowsOf(n: number) {
  let prev = GENESIS_DIGEST;
  return Array.from({ length: n }, (_, i) => {
    const body = canonical({
      seq: i + 1,
      sessionId: "s1",
      author: "runtime",
      at: "t",
      modelVisibility: "hidden",
      actions: { stateDelta: { i } },
    });
    prev = chainDigest(prev, body);
    return { seq: i + 1, body, digest: prev };
  });
}

describe("verifyInChunks (docs/API.md §7.20)", () => {
  it("checks at most `chunk` rows between yields, stops at the highWater it was given, and agrees with one pass", async () => {
    const rows = rowsOf(12_345);
    const reads: number[] = [];
    let yields = 0;
    const store = {
      blobs: { meta: () => null, check: () => false },
      readRows(after: number, through: number, limit: number) {
        const out = rows.filter((r) => r.seq > after && r.seq <= through).slice(0, limit);
        reads.push(out.length);
        return out;
      },
    };
    const result = await verifyInChunks(store, "s1", 12_000, 5_000, async () => {
      yields++;
    });
    expect(Math.max(...reads)).toBeLessThanOrEqual(5_000);
    expect(yields).toBe(reads.length - 1);
    expect(result).toEqual(verifyRows(rows.slice(0, 12_000), "s1"));
    expect(result.highWater).toBe(12_000);
  });

  it("reports a log shorter than its highWater", async () => {
    const rows = rowsOf(10);
    const store = {
      blobs: { meta: () => null, check: () => false },
      readRows: (after: number) => rows.filter((r) => r.seq > after),
    };
    const result = await verifyInChunks(store, "s1", 11, 5_000, async () => {});
    expect(result).toMatchObject({ ok: false, highWater: 11, problems: ["seq 11: missing"] });
  });
});
