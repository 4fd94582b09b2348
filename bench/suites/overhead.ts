/**
 * What the runtime adds per agent step (answer committed → next request sent), on sessions of 1k,
 * 10k and 100k events and with 3 or 300 offloaded results since the checkpoint
 * (docs/design.md#4-the-run-loop); and what a step costs in dollars at Cloudflare's prices.
 */
import { type Bench, fillShaped, log } from "../lib/bench";
import { fmt, percentile, type Report, type Stat, span, stat } from "../lib/stats";
import { costTable, dollarsPer1000Steps, rowsTarget } from "./cost";
import {
  countedRows,
  type PerStep,
  perStepOf,
  type RowsPerStep,
  rowsPerStepOf,
  type StepResults,
  type TurnAnswer,
} from "./steps";

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

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Steps per timed call of the floor (./floor.ts in the bench Worker): many, so the call's own cost is small beside them. */
const FLOOR_K = 200;

export type StepFloor = {
  cpu: Stat;
  wall: Stat;
  pooled: { cpu: number; wall: number };
  requestBytes: number;
  eventBytes: number;
};

export type OverheadResults = Record<
  string,
  PerStep & { events: number[]; inObject: { p50: number; p99: number }; rows: RowsPerStep; floor: StepFloor }
>;

/**
 * Every session's steps, its floor and its empty turn once per run, the sessions interleaved within
 * a run: the targets compare sessions with each other (100k with 1k, 300 offloads with 3), so a
 * stretch of load on the machine falls on both sides of a ratio. Measured one session after the
 * other, a test suite beside the bench read 300 offloads 1.37× as slow as 3 in one run.
 */
export async function runOverhead(b: Bench): Promise<OverheadResults> {
  const out: OverheadResults = {};
  for (const o of OVERHEAD_SESSIONS) await fillShaped(b, o.name, o.size, o.shape);
  type Samples = {
    withK: { wall: number; cpu: number }[];
    without: { wall: number; cpu: number }[];
    events: number[];
    inObject: number[];
    floorCpu: number[];
    floorWall: number[];
    floorSizes: { requestBytes: number; eventBytes: number };
  };
  const samples = new Map<string, Samples>();
  for (const o of OVERHEAD_SESSIONS) {
    await b.call("BENCH_SESSION", o.name, "benchTurn", [2, 1]); // warm-up
    samples.set(o.key, {
      withK: [],
      without: [],
      events: [],
      inObject: [],
      floorCpu: [],
      floorWall: [],
      floorSizes: { requestBytes: 0, eventBytes: 0 },
    });
  }
  for (let run = 0; run <= OVERHEAD_RUNS; run++) {
    // In an order that rotates every run, so that no session always follows the same one.
    for (let i = 0; i < OVERHEAD_SESSIONS.length; i++) {
      const o = OVERHEAD_SESSIONS[(run + i) % OVERHEAD_SESSIONS.length]!;
      const m = samples.get(o.key)!;
      await b.empty("BENCH_SESSION", o.name);
      const t = await b.call<TurnAnswer>("BENCH_SESSION", o.name, "benchTurn", [OVERHEAD_K, 1]);
      const t0 = await b.call<TurnAnswer>("BENCH_SESSION", o.name, "benchTurn", [0, 1]);
      // The floor in the same run, on the same session, right after the steps it is the floor of.
      const f = await b.call<{ requestBytes: number; eventBytes: number }>("BENCH_SESSION", o.name, "benchStepFloor", [
        FLOOR_K,
      ]);
      if (t.value.toolsRun !== OVERHEAD_K)
        throw new Error(`bench: ${t.value.toolsRun} of ${OVERHEAD_K} calls ran the tool`);
      if (run === 0) continue;
      const fl = b.perOp("BENCH_SESSION", f, FLOOR_K);
      m.floorCpu.push(fl.cpu);
      m.floorWall.push(fl.wall);
      m.floorSizes = { requestBytes: f.value.requestBytes, eventBytes: f.value.eventBytes };
      const base = b.baseline("BENCH_SESSION");
      m.withK.push({ wall: t.wallMs - base.wall, cpu: t.cpuMs - base.cpu });
      m.without.push({ wall: t0.wallMs - base.wall, cpu: t0.cpuMs - base.cpu });
      m.events.push(t0.value.highWater);
      m.inObject.push(...t.value.gapsMs);
    }
  }
  for (const o of OVERHEAD_SESSIONS) {
    const m = samples.get(o.key)!;
    const rows = await countedRows(b, o.name, OVERHEAD_K, 1);
    out[o.key] = {
      ...perStepOf(m.withK, m.without, OVERHEAD_K),
      events: m.events,
      inObject: { p50: percentile(m.inObject, 50), p99: percentile(m.inObject, 99) },
      rows: rowsPerStepOf(rows.withN, rows.without, OVERHEAD_K),
      floor: {
        cpu: stat(m.floorCpu),
        wall: stat(m.floorWall),
        pooled: { cpu: mean(m.floorCpu), wall: mean(m.floorWall) },
        ...m.floorSizes,
      },
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
  for (const key of ["1k", "10k", "100k"]) {
    const f = ov[key]!.floor;
    info(
      `  floor of a model step @${key}: its 4 events as raw INSERT + SHA-256, its request serialized, ms/step`,
      span(f.cpu, 3),
      fmt(f.wall.median, 3),
      `request ${f.requestBytes} B, events ${f.eventBytes} B`,
    );
  }
  costTable(stepR, ov, t);
  // Fails if a step does more than 3× the work no runtime can skip (its events' INSERTs and hashes,
  // the request's serialization), measured in the same run on the same session: a second context
  // build, a digest over the whole request twice, a projection of the turn growing with each step.
  const vsFloor = ["1k", "10k", "100k"].map((key) => ({ key, r: ov[key]!.pooled.cpu / ov[key]!.floor.pooled.cpu }));
  const worst = vsFloor.reduce((w, x) => (x.r > w.r ? x : w));
  target(
    "step overhead vs its floor, worst of 1k/10k/100k (CPU, pooled over interleaved runs)",
    `${fmt(ov[worst.key]!.pooled.cpu, 3)} / ${fmt(ov[worst.key]!.floor.pooled.cpu, 3)} ms @${worst.key}`,
    `${fmt(worst.r)}×`,
    "≤ 3×",
    worst.r <= 3,
  );
  // Fails if a model step writes one index entry or cache row more than it did: its floor is its
  // 4 events (the request, the answer's call, its dispatch, its result).
  const worstRows = ["1k", "10k", "100k"].reduce(
    (w, key) => (ov[key]!.rows.written > ov[w]!.rows.written ? key : w),
    "1k",
  );
  const wr = ov[worstRows]!;
  rowsTarget(
    { target },
    `model step: rows written per step, worst of 1k/10k/100k (@${worstRows}; index entries included)`,
    wr.rows.written,
    dollarsPer1000Steps({
      wallMs: wr.wall.median,
      cpuMs: wr.cpu.median,
      rowsRead: wr.rows.read,
      rowsWritten: wr.rows.written,
    }),
    4,
    8,
  );
  // Fails if any per-step read grows with the log (reading from seq 0, a scan, a COUNT).
  const stepFlat = ov["100k"]!.pooled.cpu / ov["1k"]!.pooled.cpu;
  target(
    "step overhead @100k vs @1k",
    `${fmt(ov["100k"]!.pooled.cpu, 3)} / ${fmt(ov["1k"]!.pooled.cpu, 3)} ms (pooled)`,
    `${fmt(stepFlat)}×`,
    "≤ 1.2×",
    stepFlat <= 1.2,
  );
  // Fails if offloaded bodies are read back (the blob or the full logged result) per step.
  const offFlat = ov.off300!.pooled.cpu / ov.off3!.pooled.cpu;
  target(
    "step overhead with 300 vs 3 offloaded results since the checkpoint",
    `${fmt(ov.off300!.pooled.cpu, 3)} / ${fmt(ov.off3!.pooled.cpu, 3)} ms (pooled)`,
    `${fmt(offFlat)}×`,
    "≤ 1.2×",
    offFlat <= 1.2,
  );
}
