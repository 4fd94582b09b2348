/**
 * A durable step against Restate (docs/design.md#4-the-run-loop): 50 no-op tool calls in one model
 * answer on our side, 50 `ctx.run` no-ops in one invocation on a local restate-server, interleaved
 * per run. Per step = (n steps − 1 step) / (n − 1): each side's baseline has the same shape as its
 * timed run, so what differs is only n − 1 more durable steps. A turn with calls makes a second
 * model request (the results go back) that a turn without any does not, and an invocation has no
 * counterpart to it; against a baseline of none, 1/n of that request counted as a tool step's.
 * The figure against none is reported beside it.
 */
import { type Bench, log } from "../lib/bench";
import { startRestate } from "../lib/restate";
import { fmt, percentile, type Report, type Stat, span, stat } from "../lib/stats";
import { dollarsPer1000Steps, rowsTarget } from "./cost";

/** Durable steps per timed turn / invocation. */
export const STEPS_N = 50;
/**
 * Timed runs, after untimed warm-up runs of both contenders. With one warm-up the first timed turns
 * still ran code V8 had not optimized yet (a turn of 50 steps took 34, 29, 23… ms over the first
 * runs and 17–20 ms from the tenth on, and Restate's invocations shortened too), so the figure
 * depended on how soon the machine let the JIT finish. Steady state is what a busy isolate runs.
 */
const STEP_RUNS = 21;
const STEP_WARM = 10;
/** Turns counted for rows, apart from the timed ones. */
const ROW_RUNS = 3;

/**
 * Per-step cost: the median over runs (with its spread), and `pooled`, the mean over every run
 * (Σ turns of n steps − Σ turns of none) / (n × runs). The samples are bimodal: a major GC lands in
 * a run or not, so a median flips between the two modes from one bench to the next. Summed over
 * runs that interleave the contenders, each pays its collections in proportion to what it
 * allocates; the targets compare pooled figures (issue 26, item 5).
 */
export type PerStep = {
  wall: Stat;
  cpu: Stat;
  p50: number;
  p99: number;
  unit: string;
  pooled: { wall: number; cpu: number };
};

export function perStepOf(
  withN: { wall: number; cpu: number }[],
  without: { wall: number; cpu: number }[],
  n: number,
): PerStep {
  // (turn of n steps − median turn of 0 steps) / n, per run: the fixed cost of a turn or an
  // invocation (HTTP, the message, the closing answer) cancels on both sides.
  const w0 = stat(without.map((x) => x.wall)).median;
  const c0 = stat(without.map((x) => x.cpu)).median;
  const wall = withN.map((x) => Math.max(0, x.wall - w0) / n);
  const cpu = withN.map((x) => Math.max(0, x.cpu - c0) / n);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const runs = Math.max(1, Math.min(withN.length, without.length));
  const pooled = {
    wall: Math.max(0, sum(withN.map((x) => x.wall)) - sum(without.map((x) => x.wall))) / (n * runs),
    cpu: Math.max(0, sum(withN.map((x) => x.cpu)) - sum(without.map((x) => x.cpu))) / (n * runs),
  };
  return { wall: stat(wall), cpu: stat(cpu), p50: percentile(wall, 50), p99: percentile(wall, 99), unit: "ms", pooled };
}

/** `fromNone`: the pooled figure against a baseline of no steps, (n − 0) / n, reported beside the target's. */
export type StepResults = {
  restate: PerStep & {
    fromNone: PerStep["pooled"];
    inHandler: { p50: number; p99: number; steps: number };
    durability: Record<string, string>;
  };
  ours: PerStep & { fromNone: PerStep["pooled"]; requests: number; rows: RowsPerStep };
};

export type TurnAnswer = {
  requests: number;
  gapsMs: number[];
  slices: number;
  highWater: number;
  rows: { read: number; written: number };
  /** How many of the turn's calls ran the tool (a call answered with an error never does). */
  toolsRun: number;
};

/** Rows per step: (rows of a turn of n steps − median rows of a turn of none) / n, median over runs. */
export type RowsPerStep = { read: number; written: number };
export function rowsPerStepOf(withN: RowsPerStep[], without: RowsPerStep[], n: number): RowsPerStep {
  const r0 = stat(without.map((x) => x.read)).median;
  const w0 = stat(without.map((x) => x.written)).median;
  return {
    read: stat(withN.map((x) => Math.max(0, x.read - r0) / n)).median,
    written: stat(withN.map((x) => Math.max(0, x.written - w0) / n)).median,
  };
}

/**
 * Rows of ROW_RUNS turns of `answers` answers of `calls` calls each, and of as many turns of none, in
 * turns of their own: the timed turns run without the counting wrapper on `exec`.
 */
export async function countedRows(
  b: Bench,
  name: string,
  answers: number,
  calls: number,
): Promise<{ withN: RowsPerStep[]; without: RowsPerStep[] }> {
  const withN: RowsPerStep[] = [];
  const without: RowsPerStep[] = [];
  for (let run = 0; run < ROW_RUNS; run++) {
    withN.push((await b.call<TurnAnswer>("BENCH_SESSION", name, "benchTurn", [answers, calls, true])).value.rows);
    without.push((await b.call<TurnAnswer>("BENCH_SESSION", name, "benchTurn", [0, 1, true])).value.rows);
  }
  return { withN, without };
}

export async function runSteps(b: Bench): Promise<StepResults> {
  const restate = await startRestate();
  log(`restate-server up; durability as configured: ${JSON.stringify(restate.durability)}`);
  try {
    const peer = "steps-peer";
    await b.call("BENCH_SESSION", peer, "benchTurn", [1, 2]); // creates the session; warm-up
    const rN: { wall: number; cpu: number }[] = [];
    const r0: { wall: number; cpu: number }[] = [];
    const r1: { wall: number; cpu: number }[] = [];
    const hN: { wall: number; cpu: number }[] = [];
    const h0: { wall: number; cpu: number }[] = [];
    const h1: { wall: number; cpu: number }[] = [];
    const gaps: number[] = [];
    let requests = 0;
    for (let run = 1 - STEP_WARM; run <= STEP_RUNS; run++) {
      // Interleaved, so drift in machine load touches both sides alike.
      const a = await restate.invoke(STEPS_N);
      const z = await restate.invoke(0);
      const y = await restate.invoke(1);
      await b.empty("BENCH_SESSION", peer);
      const t = await b.call<TurnAnswer>("BENCH_SESSION", peer, "benchTurn", [1, STEPS_N]);
      const t0 = await b.call<TurnAnswer>("BENCH_SESSION", peer, "benchTurn", [0, 1]);
      const t1 = await b.call<TurnAnswer>("BENCH_SESSION", peer, "benchTurn", [1, 1]);
      if (t.value.toolsRun !== STEPS_N) throw new Error(`bench: ${t.value.toolsRun} of ${STEPS_N} calls ran the tool`);
      if (t1.value.toolsRun !== 1) throw new Error(`bench: ${t1.value.toolsRun} of 1 call ran the tool`);
      if (run <= 0) continue;
      rN.push({ wall: a.wallMs, cpu: a.cpuMs });
      r0.push({ wall: z.wallMs, cpu: z.cpuMs });
      r1.push({ wall: y.wallMs, cpu: y.cpuMs });
      const base = b.baseline("BENCH_SESSION");
      hN.push({ wall: t.wallMs - base.wall, cpu: t.cpuMs - base.cpu });
      h0.push({ wall: t0.wallMs - base.wall, cpu: t0.cpuMs - base.cpu });
      h1.push({ wall: t1.wallMs - base.wall, cpu: t1.cpuMs - base.cpu });
      gaps.push(...a.gapsNs.map((g) => g / 1e6));
      requests = t.value.requests;
    }
    const rows = await countedRows(b, peer, 1, STEPS_N);
    const out: StepResults = {
      restate: {
        ...perStepOf(rN, r1, STEPS_N - 1),
        fromNone: perStepOf(rN, r0, STEPS_N).pooled,
        inHandler: { p50: percentile(gaps, 50), p99: percentile(gaps, 99), steps: gaps.length },
        durability: restate.durability,
      },
      ours: {
        ...perStepOf(hN, h1, STEPS_N - 1),
        fromNone: perStepOf(hN, h0, STEPS_N).pooled,
        requests,
        rows: rowsPerStepOf(rows.withN, rows.without, STEPS_N),
      },
    };
    log(
      `durable step: restate ${out.restate.wall.median.toFixed(3)} ms (in handler p50 ${out.restate.inHandler.p50.toFixed(2)}), ours ${out.ours.wall.median.toFixed(3)} ms`,
    );
    return out;
  } finally {
    await restate.stop();
  }
}

export function reportSteps(stepR: StepResults, { info, target }: Report): void {
  // durable steps against Restate (item 1)
  const rr = stepR.restate;
  const ho = stepR.ours;
  info(
    `Restate: durable step (ctx.run no-op), ms/step, ${STEPS_N} per invocation, from the ingress client`,
    span(rr.wall, 3),
    "",
    `p50 ${fmt(rr.p50, 3)} / p99 ${fmt(rr.p99, 3)} (per-run); in handler p50 ${fmt(rr.inHandler.p50, 3)} / p99 ${fmt(rr.inHandler.p99, 3)}`,
  );
  info(
    "  Restate durability as configured (restate-server --dump-config)",
    Object.entries(rr.durability)
      .filter(([key]) => /disable-wal/.test(key))
      .map(([key, v]) => `${key.replace(/rocksdb-/, "")}=${v}`)
      .join(", "),
  );
  info(
    `ours: durable step (a no-op tool call: T1 + run + T2 + plan), ms/step, ${STEPS_N} calls in one answer`,
    span(ho.wall, 3),
    "",
    `p50 ${fmt(ho.p50, 3)} / p99 ${fmt(ho.p99, 3)} (per-run); CPU ${fmt(ho.cpu.median, 3)} ms; rows read / written per step ${fmt(ho.rows.read, 1)} / ${fmt(ho.rows.written, 1)}`,
  );
  info(
    "  ours durability as configured",
    "workerd local SQLite, defaults (not set by us); 1 transactionSync per commit; output gate",
  );
  // Fails if a tool step's fixed cost grows by half: an extra read of the whole turn suffix per
  // step, a second transaction per commit, an awaited storage round trip between T1 and T2.
  const vsRestate = rr.pooled.wall / ho.pooled.wall;
  target(
    "durable step: ours vs Restate (wall per step, (n − 1 step) / (n − 1), pooled over interleaved runs)",
    `${fmt(ho.pooled.wall, 3)} / ${fmt(rr.pooled.wall, 3)} ms`,
    `${fmt(vsRestate)}× faster`,
    "≥ 6× faster",
    vsRestate >= 6,
  );
  // The same turns against a baseline of no steps: 1/n of our second model request counted in.
  info(
    "  against a baseline of no steps, (n − 0) / n: ours / Restate (wall, pooled)",
    `${fmt(ho.fromNone.wall, 3)} / ${fmt(rr.fromNone.wall, 3)} ms`,
    "",
    `${fmt(rr.fromNone.wall / ho.fromNone.wall)}× faster`,
  );
  // Fails if a step writes one index entry or cache row more than it did (docs/design.md#3-storage):
  // its floor is its 3 events (the call, its dispatch, its result), one row each.
  rowsTarget(
    { target },
    "durable tool step: rows written per step (index entries included)",
    ho.rows.written,
    dollarsPer1000Steps({
      wallMs: ho.wall.median,
      cpuMs: ho.cpu.median,
      rowsRead: ho.rows.read,
      rowsWritten: ho.rows.written,
    }),
    3,
    5,
  );
}
