/** The bench's own checks: a target that misses is counted as missed, and the socket check catches what the server sent twice or skipped. */
import { describe, expect, it } from "vitest";
import { exactlyTheLog, type Received } from "../../../bench/lib/sockets";
import { percentile, stat, Table } from "../../../bench/lib/stats";

const log = [1, 2, 3].map((seq) => ({ seq, digest: `d${seq}` }));
const got = (seqs: number[]): Received[] => seqs.map((seq) => ({ seq, digest: `d${seq}`, at: "", recvAt: 0 }));

describe("bench checks", () => {
  it("counts a missed target as missed and prints it as NO", () => {
    const t = new Table();
    t.target("fast", "1 ms", "", "≤ 2 ms", true);
    t.target("slow", "3 ms", "", "≤ 2 ms", false);
    expect({ met: t.met, targets: t.targets }).toEqual({ met: 1, targets: 2 });
    expect(t.rows.map((r) => r.met)).toEqual(["yes", "NO"]);
  });

  it("takes medians and nearest-rank percentiles", () => {
    expect(stat([5, 1, 3, 2]).median).toBe(2.5);
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 99)).toBe(40);
  });

  it("fails a client whose frames repeat, skip or disagree with the log", () => {
    expect(exactlyTheLog(got([1, 2, 3]), log, 3)).toBe(true);
    expect(exactlyTheLog(got([1, 2, 2, 3]), log, 3)).toBe(false);
    expect(exactlyTheLog(got([1, 3]), log, 3)).toBe(false);
    expect(exactlyTheLog([...got([1, 2]), { seq: 3, digest: "other", at: "", recvAt: 0 }], log, 3)).toBe(false);
  });
});
