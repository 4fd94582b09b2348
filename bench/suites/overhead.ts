/**
 * What the runtime adds per agent step (answer committed → next request sent), on sessions of 1k,
 * 10k and 100k events and with 3 or 300 offloaded results since the checkpoint
 * (docs/design.md#4-the-run-loop); and what a step costs in dollars at Cloudflare's prices.
 */
import { type Bench, fillShaped, log } from "../lib/bench";
import { fmt, percentile, type Report, span } from "../lib/stats";
import { costTable } from "./cost";
import { type PerStep, perStepOf, type RowsPerStep, rowsPerStepOf, type StepResults, type TurnAnswer } from "./steps";

/** Agent steps (answer → tool → next request) per timed turn in the overhead bench. */
export const OVERHEAD_K = 20;
const OVERHEAD_RUNS = 7;

export const OVERHEAD_SESSIONS = [
  { key: "1k", name: "step-1000", size: 1_000, shape: { open: "none", tail: 200, offloads: 0 } },
  { key: "10k", name: "step-10000", size: 10_000, shape: { open: "none", tail: 200, offloads: 0 } },
  { key: "100k", name: "step-100000", size: 100_000, shape: { open: "none", tail: 200, offloads: 0 } },
  // Same size and the same 2,400 events since the checkpoint; 3 or 300 of their results offloaded.
  { key: "off3", name: "off-3", size: 10_000, shape: { open: "none", tail: 2_400, offloads: 3 } },
  { key: "off300", name: "off-300", size: 10_000, shape: { open: "none", tail: 2_400, offloads: 300 } },
] as const;

export type OverheadResults = Record<
  string,
  PerStep & { events: number[]; inObject: { p50: number; p99: number }; rows: RowsPerStep }
>;

export async function runOverhead(b: Bench): Promise<OverheadResults> {
  const out: OverheadResults = {};
  for (const o of OVERHEAD_SESSIONS) await fillShaped(b, o.name, o.size, o.shape);
  for (const o of OVERHEAD_SESSIONS) {
    await b.call("BENCH_SESSION", o.name, "benchTurn", [2, 1]); // warm-up
    const withK: { wall: number; cpu: number }[] = [];
    const without: { wall: number; cpu: number }[] = [];
    const events: number[] = [];
    const inObject: number[] = [];
    const rowsK: RowsPerStep[] = [];
    const rowsNone: RowsPerStep[] = [];
    for (let run = 0; run <= OVERHEAD_RUNS; run++) {
      await b.empty("BENCH_SESSION", o.name);
      const t = await b.call<TurnAnswer>("BENCH_SESSION", o.name, "benchTurn", [OVERHEAD_K, 1]);
      const t0 = await b.call<TurnAnswer>("BENCH_SESSION", o.name, "benchTurn", [0, 1]);
      if (run === 0) continue;
      const base = b.baseline("BENCH_SESSION");
      withK.push({ wall: t.wallMs - base.wall, cpu: t.cpuMs - base.cpu });
      without.push({ wall: t0.wallMs - base.wall, cpu: t0.cpuMs - base.cpu });
      events.push(t0.value.highWater);
      inObject.push(...t.value.gapsMs);
      rowsK.push(t.value.rows);
      rowsNone.push(t0.value.rows);
    }
    out[o.key] = {
      ...perStepOf(withK, without, OVERHEAD_K),
      events,
      inObject: { p50: percentile(inObject, 50), p99: percentile(inObject, 99) },
      rows: rowsPerStepOf(rowsK, rowsNone, OVERHEAD_K),
    };
    log(
      `step overhead ${o.key}: ${out[o.key]!.cpu.median.toFixed(3)} ms CPU, ${out[o.key]!.wall.median.toFixed(3)} ms wall per step`,
    );
  }
  return out;
}

export function reportOverhead(ov: OverheadResults, stepR: StepResults, t: Report): void {
  const { info, target } = t;
  // runtime overhead per agent step (item 2)
  for (const o of OVERHEAD_SESSIONS) {
    const r = ov[o.key]!;
    info(
      `step overhead (answer committed → next request sent), ms/step @${o.key === "off3" ? "10k, 3 offloads" : o.key === "off300" ? "10k, 300 offloads" : o.key}`,
      span(r.cpu, 3),
      fmt(r.wall.median, 3),
      `wall p50 ${fmt(r.p50, 3)} / p99 ${fmt(r.p99, 3)}; rows read / written per step ${fmt(r.rows.read, 1)} / ${fmt(r.rows.written, 1)}; in-object (1 ms clock) p50 ${fmt(r.inObject.p50, 0)} / p99 ${fmt(r.inObject.p99, 0)}; ${r.events[0]}→${r.events.at(-1)} events`,
    );
  }
  costTable(stepR, ov, t);
  // Fails if a step does more than ~1 ms of work of its own (the context build, the request
  // digest, the suffix projection growing), whatever the session's size.
  const worstStep = Math.max(...["1k", "10k", "100k"].map((key) => ov[key]!.cpu.median));
  target("step overhead p50, worst of 1k/10k/100k (CPU)", `${fmt(worstStep, 3)} ms`, "", "≤ 1 ms", worstStep <= 1);
  // Fails if any per-step read grows with the log (reading from seq 0, a scan, a COUNT).
  const stepFlat = ov["100k"]!.cpu.median / ov["1k"]!.cpu.median;
  target(
    "step overhead @100k vs @1k",
    `${fmt(ov["100k"]!.cpu.median, 3)} / ${fmt(ov["1k"]!.cpu.median, 3)} ms`,
    `${fmt(stepFlat)}×`,
    "≤ 1.2×",
    stepFlat <= 1.2,
  );
  // Fails if offloaded bodies are read back (the blob or the full logged result) per step.
  const offFlat = ov.off300!.cpu.median / ov.off3!.cpu.median;
  target(
    "step overhead with 300 vs 3 offloaded results since the checkpoint",
    `${fmt(ov.off300!.cpu.median, 3)} / ${fmt(ov.off3!.cpu.median, 3)} ms`,
    `${fmt(offFlat)}×`,
    "≤ 1.2×",
    offFlat <= 1.2,
  );
}
