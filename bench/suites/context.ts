/**
 * The context build after a compaction and the recovery plan's reads (docs/design.md#6-context-budget-compaction-offload,
 * docs/design.md#5-recovery) on sessions of 1k, 10k and 100k events, each on a fresh instance; and
 * the peak memory of a cold wake on a freshly started workerd.
 */
import { type Bench, log, MB, measure, type RowCount, sleep } from "../lib/bench";
import { memory, resetPeak, startBenchWorker } from "../lib/procs";
import { type Cost, fmt, type Report, type Stat, span, stat } from "../lib/stats";
import { k, SIZES } from "./append";
import type { TakeoverAnswer } from "./takeover";

export type ContextAnswer = {
  inObjectMs: number;
  rows: RowCount;
  messages: number;
  rawFromSeq: number;
  checkpoint: string | null;
};
export type RecoverAnswer = {
  construct: { ms: number; rows: RowCount } | null;
  planMs: number;
  planRows: RowCount;
  problems: string[];
  plan: { interrupted: string[]; closed: boolean };
  highWater: number;
};

export type ColdMemory = {
  /** Peak RSS growth of the first request to a 100k-event session on a freshly started workerd. */
  coldPeakMB: number;
  coldRssBeforeMB: number;
  contextPeakMB: number;
  coldWake: { cpuMs: number; wallMs: number };
  clearRefs: boolean;
  takeoverPeakMB: number;
  takeoverMs: number;
};

export type ContextResults = {
  build: Record<number, Cost & { rowsRead: number; messages: number; rawFromSeq: number; checkpoint: string | null }>;
  recover: Record<number, Cost & { peakMB: Stat; rowsRead: number; statements: number; interrupted: string[] }>;
};

/** Sessions for context, recovery and commit: turns, a checkpoint, an open turn. */
async function fillSessions(b: Bench) {
  const fill = async (name: string, size: number) => {
    for (;;) {
      const r = await b.call<{ done: boolean; events: number }>("BENCH_SESSION", name, "benchFill", [size]);
      if (r.value.done) return r.value.events;
    }
  };
  for (const size of SIZES) {
    const t0 = Date.now();
    const events = await fill(`ctx-${size}`, size);
    log(`filled session ${size}: ${events} events in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

export async function runContext(b: Bench): Promise<ContextResults> {
  await fillSessions(b);
  const out: ContextResults = {
    build: {},
    recover: {},
  };
  for (const size of SIZES) {
    const obj = `ctx-${size}`;
    await b.callExpectingError("BENCH_SESSION", obj, "benchAbort");
    await b.empty("BENCH_SESSION", obj);
    const probe = await b.call<ContextAnswer>("BENCH_SESSION", obj, "benchContext", [1]);
    // Enough builds per call for ≥ ~40 ms of work.
    const m = Math.max(1, Math.min(50, Math.round(40 / Math.max(0.05, probe.cpuMs - b.baseline("BENCH_SESSION").cpu))));
    let last = probe.value;
    const cost = await measure("ms", async () => {
      await b.empty("BENCH_SESSION", obj);
      const r = await b.call<ContextAnswer>("BENCH_SESSION", obj, "benchContext", [m]);
      last = r.value;
      return b.perOp("BENCH_SESSION", r, m);
    });
    out.build[size] = {
      ...cost,
      rowsRead: last.rows.rowsRead,
      messages: last.messages,
      rawFromSeq: last.rawFromSeq,
      checkpoint: last.checkpoint,
    };
    log(
      `context @${size}: ${cost.cpu.median.toFixed(2)} ms (CPU), ${last.rows.rowsRead} rows read, ${last.messages} messages`,
    );

    // Each run meets a fresh instance (ctx.abort) and reads the workerd's peak RSS around it.
    let answer: RecoverAnswer | null = null;
    const peaks: number[] = [];
    const rec = await measure("ms", async (run) => {
      await b.empty("BENCH_SESSION", obj);
      await b.callExpectingError("BENCH_SESSION", obj, "benchAbort");
      const pid = b.srv.workerd;
      const cleared = resetPeak(pid);
      const before = memory(pid);
      const r = await b.call<RecoverAnswer>("BENCH_SESSION", obj, "benchRecover");
      if (run > 0) peaks.push(cleared ? (memory(pid).hwm - before.rss) / MB : Number.NaN);
      answer = r.value;
      return b.perOp("BENCH_SESSION", r, 1);
    });
    const a = answer as RecoverAnswer | null;
    if (!a || a.problems.length > 0) throw new Error(`recovery @${size}: ${JSON.stringify(a)}`);
    out.recover[size] = {
      ...rec,
      peakMB: stat(peaks),
      rowsRead: (a.construct?.rows.rowsRead ?? 0) + a.planRows.rowsRead,
      statements: (a.construct?.rows.statements ?? 0) + a.planRows.statements,
      interrupted: a.plan.interrupted,
    };
    log(`recovery @${size}: ${rec.wall.median.toFixed(2)} ms, ${out.recover[size]!.rowsRead} rows read`);
  }
  return out;
}

/**
 * A woken object on a freshly started workerd (the database file opened, the script loaded,
 * nothing cached): the first request to the 100k-event session, and its peak memory; then
 * a context build's peak on the same process.
 */
export async function coldMemory(b: Bench, persistTo: string): Promise<ColdMemory> {
  const memo: ColdMemory = {
    coldPeakMB: Number.NaN,
    coldRssBeforeMB: Number.NaN,
    contextPeakMB: Number.NaN,
    coldWake: { cpuMs: Number.NaN, wallMs: Number.NaN },
    clearRefs: false,
    takeoverPeakMB: Number.NaN,
    takeoverMs: Number.NaN,
  };
  const size = SIZES[SIZES.length - 1]!;
  const obj = `ctx-${size}`;
  await b.srv.stop();
  b.srv = await startBenchWorker(persistTo);
  // Load the script (one isolate serves all the Worker's objects), then reset the peak.
  for (let i = 0; i < 3; i++) await b.empty("BENCH_LOG", "warm");
  await sleep(200);
  const pid = b.srv.workerd;
  memo.clearRefs = resetPeak(pid);
  const before = memory(pid);
  const r = await b.call<RecoverAnswer>("BENCH_SESSION", obj, "benchRecover");
  memo.coldPeakMB = (memory(pid).hwm - before.rss) / MB;
  memo.coldRssBeforeMB = before.rss / MB;
  memo.coldWake = { cpuMs: r.cpuMs, wallMs: r.wallMs };
  resetPeak(pid);
  const beforeCtx = memory(pid);
  await b.call<ContextAnswer>("BENCH_SESSION", obj, "benchContext", [1]);
  memo.contextPeakMB = (memory(pid).hwm - beforeCtx.rss) / MB;
  // The real takeover (item 5) on this fresh process, where the heap has no slack left by earlier phases.
  await b.call("BENCH_SESSION", obj, "benchCountNext", [false]); // module state: the next fresh instance
  resetPeak(pid);
  const beforeTake = memory(pid);
  const take = await b.call<TakeoverAnswer>("BENCH_SESSION", "rec-100000", "benchTakeover");
  memo.takeoverPeakMB = (memory(pid).hwm - beforeTake.rss) / MB;
  memo.takeoverMs = take.value.toRequestMs;
  log(
    `cold wake @${size}: ${r.wallMs.toFixed(1)} ms, peak +${memo.coldPeakMB.toFixed(1)} MB (recovery), +${memo.contextPeakMB.toFixed(1)} MB (context build)`,
  );
  return memo;
}

/** Context and recovery rows; the targets fail if either reads what grows with the log. */
export function reportContext(ctx: ContextResults, m: ColdMemory | null, { info, target }: Report): void {
  const [small, , large] = SIZES;
  // context
  for (const size of SIZES) {
    const c = ctx.build[size]!;
    info(
      `context build after compaction, ms @${k(size)}`,
      span(c.cpu),
      fmt(c.wall.median),
      `${c.rowsRead} rows read, ${c.messages} msgs, from seq ${c.rawFromSeq}`,
    );
  }
  const ctxRatio = ctx.build[large]!.cpu.median / ctx.build[small]!.cpu.median;
  target(
    "context build @100k vs @1k",
    `${fmt(ctx.build[large]!.cpu.median)} / ${fmt(ctx.build[small]!.cpu.median)} ms`,
    `${fmt(ctxRatio)}×`,
    "≤ 2×",
    ctxRatio <= 2,
  );

  // recovery
  for (const size of SIZES) {
    const r = ctx.recover[size]!;
    info(
      `wake + the recovery plan's reads (fresh instance; the timed takeover is below), ms @${k(size)}`,
      span(r.cpu),
      fmt(r.wall.median),
      `${r.rowsRead} rows read, ${r.statements} statements, peak +${fmt(r.peakMB.median, 1)} MB`,
    );
  }
  if (m) {
    info(
      "cold wake + recovery plan @100k on a fresh workerd (1 run), ms",
      fmt(m.coldWake.cpuMs),
      fmt(m.coldWake.wallMs),
      `peak +${fmt(m.coldPeakMB, 1)} MB over RSS ${fmt(m.coldRssBeforeMB, 0)} MB`,
    );
    info("context build @100k on that workerd: peak memory growth, MB", fmt(m.contextPeakMB, 1));
  }
  const rowsSmall = ctx.recover[small]!.rowsRead;
  const rowsLarge = ctx.recover[large]!.rowsRead;
  target(
    "wake + recovery @100k: rows read vs @1k (O(suffix))",
    `${rowsLarge} / ${rowsSmall} rows`,
    `${fmt(rowsLarge / Math.max(1, rowsSmall))}×`,
    "≤ 1.2× (flat)",
    rowsLarge <= 1.2 * rowsSmall,
  );
  const peak = Math.max(ctx.recover[large]!.peakMB.max, m?.coldPeakMB ?? 0);
  info("wake + recovery plan @100k: peak workerd memory growth (worst run), MB", fmt(peak, 1));
}
