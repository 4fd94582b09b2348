/**
 * The takeover on the real path (docs/design.md#5-recovery): a 100k-event session with an open turn
 * of 2,000 events and 50 offloads, its instance dropped; from the new instance's constructor to
 * the continued model request, with the summary cache warm or cold; rows, bytes and peak memory.
 */
import { type Bench, fillShaped, log, MB, type RowCount, RUNS } from "../lib/bench";
import { memory, resetPeak } from "../lib/procs";
import { fmt, type Report, type Stat, span, stat } from "../lib/stats";
import type { ColdMemory } from "./context";

export type TakeoverAnswer = {
  constructMs: number;
  constructRows: RowCount;
  toRequestMs: number;
  alarmToRequestMs: number;
  rows: RowCount | null;
  requests: number;
  closed: boolean;
};
export type TakeoverResults = Record<
  "warm" | "cold",
  { ms: Stat; alarmMs: Stat; cpu: Stat; peakMB: Stat; rowsRead: number; bytesRead: number; statements: number }
>;

export async function runTakeover(b: Bench): Promise<TakeoverResults> {
  const name = "rec-100000";
  await fillShaped(b, name, 100_000, { open: "long", tail: 200, offloads: 0 });
  await b.call("BENCH_SESSION", name, "benchMark");
  const out = {} as TakeoverResults;
  for (const mode of ["warm", "cold"] as const) {
    const ms: number[] = [];
    const alarmMs: number[] = [];
    const cpu: number[] = [];
    const peaks: number[] = [];
    let last: TakeoverAnswer | null = null;
    // Runs 0..RUNS are timed with the SQL counter off (run 0 is the warm-up); one more, untimed,
    // counts rows and bytes.
    for (let run = 0; run <= RUNS + 1; run++) {
      const counted = run === RUNS + 1;
      await b.call("BENCH_SESSION", name, "benchRewind", [mode === "cold"]);
      await b.call("BENCH_SESSION", name, "benchCountNext", [counted]);
      await b.callExpectingError("BENCH_SESSION", name, "benchAbort");
      await b.call("BENCH_LOG", "warm", "empty");
      const pid = b.srv.workerd;
      const cleared = resetPeak(pid);
      const before = memory(pid);
      const r = await b.call<TakeoverAnswer>("BENCH_SESSION", name, "benchTakeover");
      const peak = cleared ? (memory(pid).hwm - before.rss) / MB : Number.NaN;
      if (!r.value.closed || r.value.requests !== 1) throw new Error(`takeover (${mode}): ${JSON.stringify(r.value)}`);
      if (counted) {
        last = r.value;
        continue;
      }
      if (run === 0) continue;
      ms.push(r.value.toRequestMs);
      alarmMs.push(r.value.alarmToRequestMs);
      cpu.push(r.cpuMs);
      peaks.push(peak);
    }
    const rows = last!.rows!;
    out[mode] = {
      ms: stat(ms),
      alarmMs: stat(alarmMs),
      cpu: stat(cpu),
      peakMB: stat(peaks),
      rowsRead: rows.rowsRead,
      bytesRead: rows.bytesRead ?? Number.NaN,
      statements: rows.statements,
    };
    log(
      `takeover (${mode} summary): ${out[mode].ms.median} ms constructor → request, ${rows.rowsRead} rows, ${((rows.bytesRead ?? 0) / MB).toFixed(1)} MB read, peak +${out[mode].peakMB.median.toFixed(1)} MB`,
    );
  }
  await b.call("BENCH_SESSION", name, "benchRewind", [false]);
  return out;
}

/** Takeover rows; the targets fail on a takeover over 100 ms or a peak of 32 MB or more. */
export function reportTakeover(takeR: TakeoverResults, cold: ColdMemory | null, { info, target }: Report): void {
  // recovery on the real path (item 5)
  for (const mode of ["warm", "cold"] as const) {
    const t = takeR[mode];
    info(
      `takeover @100k, open turn of 2,000 events / 50 offloads, summary cache ${mode}: constructor → continued request, ms`,
      span(t.ms, 0),
      "",
      `alarm→request ${fmt(t.alarmMs.median, 0)} ms; CPU ${fmt(t.cpu.median, 1)} ms; ${t.rowsRead} rows, ${fmt(t.bytesRead / MB, 1)} MB read, ${t.statements} statements; peak +${fmt(t.peakMB.max, 1)} MB`,
    );
    // Fails if the takeover reads more than the open turn (warm), or if rebuilding the summary
    // (cold) folds the whole log; and on a regression in the recovery plan or the context build.
    target(
      `takeover (${mode} summary): constructor → continued model request`,
      `${fmt(t.ms.median, 0)} ms`,
      "",
      "≤ 100 ms",
      t.ms.median <= 100,
    );
  }
  // Fails if a takeover holds the turn's bodies (or the offloaded blobs) in memory at once.
  if (cold)
    info(
      "takeover @100k (warm summary) on a freshly started workerd: ms / peak RSS growth, MB",
      `${fmt(cold.takeoverMs, 0)} / ${fmt(cold.takeoverPeakMB, 1)}`,
    );
  const tPeak = Math.max(takeR.warm.peakMB.max, takeR.cold.peakMB.max, cold?.takeoverPeakMB ?? 0);
  target("takeover @100k: peak workerd RSS growth (worst run)", `${fmt(tPeak, 1)} MB`, "", "< 32 MB", tPeak < 32);
}
