/** The bench's own checks: a target that misses is counted as missed, and the socket check catches what the server sent twice or skipped. */
import { describe, expect, it } from "vitest";
import { exactlyTheLog, type Received } from "../../../bench/lib/sockets";
import { percentile, stat, Table } from "../../../bench/lib/stats";
import { pairedRatio } from "../../../bench/suites/append";
import { perStepOf } from "../../../bench/suites/steps";

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

  it("counts only the steps between a baseline and a timed run of the same shape", () => {
    // A turn: fixed cost 10, one model request 2 (two when it has calls), 0.2 a durable step.
    const turn = (steps: number) => ({ wall: 10 + (steps > 0 ? 4 : 2) + 0.2 * steps, cpu: 0 });
    const runs = (steps: number) => [turn(steps), turn(steps), turn(steps)];
    const fromOne = perStepOf(runs(50), runs(1), 49);
    expect(fromOne.pooled.wall).toBeCloseTo(0.2, 9);
    expect(fromOne.wall.median).toBeCloseTo(0.2, 9);
    // Against a turn with no calls, 1/50 of the second model request is counted as a step's.
    expect(perStepOf(runs(50), runs(0), 50).pooled.wall).toBeCloseTo(0.24, 9);
  });

  it("compares two contenders run by run, so load that comes and goes counts against neither", () => {
    // The machine is twice as slow in runs 4 and 5, and a burst slows ours in run 2.
    const floor = stat([10, 10, 10, 20, 20]);
    const ours = stat([13, 26, 13, 26, 26]);
    expect(ours.median / floor.median).toBeCloseTo(2.6, 9);
    expect(pairedRatio(ours, floor)).toBeCloseTo(1.3, 9);
    // An append that truly costs twice its floor reads twice, whatever the load.
    expect(pairedRatio(stat([20, 20, 20, 40, 40]), floor)).toBeCloseTo(2, 9);
  });
});
