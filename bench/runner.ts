/**
 * `npm run bench` (DESIGN §9, issue 5): our log against the physical limit (a raw INSERT)
 * and the incumbents (`agents` Sessions, `@cloudflare/ai-chat`), measured in one workerd in
 * the same run, plus context build, recovery, restart and WebSocket fan-out on the real app.
 * Prints one table and writes bench/results/<timestamp>.json and bench/results/latest.json.
 *
 * Method. Every measure is the median of RUNS runs (STORAGE_RUNS for the append contest)
 * after a warm-up, with min and max.
 * Costs inside an object are taken from the Node side around whole HTTP calls that each do
 * many operations, minus an empty call to the same object: both the wall clock and the CPU
 * time of the workerd process that runs the Worker (all threads, /proc schedstat, ns). The
 * targets on per-operation costs use CPU time: on a small shared machine the wall clock
 * mostly measures the scheduler (both are printed). Latencies (restart, fan-out) are wall
 * clock.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import WebSocket from "ws";
import { type FakeOpenAI, startFakeOpenAI } from "../test/e2e/harness/fake-openai";
import { freePort, makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "../test/e2e/harness/wrangler";
import { benchAppConfig } from "./app-config";
import { type BytesResults, bytesFigures, reportBytes, tenMiBPeaks } from "./bytes-runner";
import {
  type BenchServer,
  cpuNs,
  memory,
  QUIET_WRANGLER_ENV,
  resetPeak,
  stableWorkerd,
  startBenchWorker,
} from "./procs";
import { summarize, withCpuProfile } from "./profile";
import { startRestate } from "./restate";

const RUNS = 5;
/** The append contenders are cheap to run and noisy on a shared machine: more runs. */
const STORAGE_RUNS = 9;
const SIZES = [1_000, 10_000, 100_000] as const;
const CHAT_SIZES = [100, 1_000, 5_000] as const;
/** Operations per timed call: enough for ≥ ~20 ms of work, so the empty call's cost is small beside it. */
const BATCH = {
  raw: 5_000,
  rawHashed: 4_000,
  ours: 2_500,
  group8: 2_496,
  agents: 700,
  readTail: 100,
  commit: 500,
  turns: 40,
} as const;
const CHAT_BATCH: Record<(typeof CHAT_SIZES)[number], number> = { 100: 50, 1000: 5, 5000: 1 };
const TOKEN = "bench-token";
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const began = Date.now();
const log = (msg: string) => process.stderr.write(`bench [${((Date.now() - began) / 1000).toFixed(0)} s] ${msg}\n`);

/** A --persist-to directory, removed when the run ends, also when it is interrupted. */
function scratchDir(prefix: string): string {
  const dir = makePersistDir(prefix);
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---- statistics ---------------------------------------------------------------------------

type Stat = { median: number; min: number; max: number; n: number; samples: number[] };

function stat(samples: number[]): Stat {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length, samples };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Two samples per run: CPU time of workerd and wall clock, both per operation. */
type Cost = { cpu: Stat; wall: Stat; unit: string };

// ---- the bench Worker ---------------------------------------------------------------------

type Ns = "BENCH_LOG" | "BENCH_SESSION" | "BENCH_AGENTS" | "BENCH_CHAT" | "BENCH_BYTES";
type CallResult<T> = { value: T; wallMs: number; cpuMs: number; workerMs: number };

class WorkerdRestarted extends Error {}

class Bench {
  /** Empty-call costs per object, the baseline subtracted from every timed call. */
  readonly #empties = new Map<string, { cpu: number[]; wall: number[] }>();

  constructor(public srv: BenchServer) {}

  /** workerd restarts seen (and recovered from) during the run. */
  restarts = 0;

  /**
   * One call, timed. Should workerd restart under it (wrangler reloads on a change in a
   * watched file, e.g. node_modules, or the process dies), the call is made again on the
   * new process: a request cut short committed nothing, and fills and truncations are
   * idempotent.
   */
  async call<T>(ns: Ns, name: string, method: string, args: unknown[] = [], repeat = 1): Promise<CallResult<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#callOnce<T>(ns, name, method, args, repeat);
      } catch (err) {
        if (!(err instanceof WorkerdRestarted) || attempt >= 3) throw err;
        this.restarts++;
        log(
          `workerd restarted during ${ns}/${name}.${method} (${err.message}); calling again. wrangler's output ends:\n` +
            this.srv.logs().slice(-1500),
        );
        this.srv.workerd = await stableWorkerd(this.srv.pgid, this.srv.port, Date.now() + 120_000);
      }
    }
  }

  async #callOnce<T>(ns: Ns, name: string, method: string, args: unknown[], repeat: number): Promise<CallResult<T>> {
    const pid = this.srv.workerd;
    const cpu = () => {
      try {
        return cpuNs(pid);
      } catch {
        throw new WorkerdRestarted(`pid ${pid} is gone`);
      }
    };
    const c0 = cpu();
    const t0 = performance.now();
    const res = await fetch(`${this.srv.url}/call`, {
      method: "POST",
      body: JSON.stringify({ ns, name, method, args, repeat }),
    });
    const text = await res.text();
    const wallMs = performance.now() - t0;
    const cpuMs = (cpu() - c0) / 1e6;
    if (res.status === 503 && /restarted/.test(text)) throw new WorkerdRestarted(text.slice(0, 80));
    const body = JSON.parse(text) as { ok: boolean; value: T; error?: string; workerMs: number };
    if (!body.ok) throw new Error(`${ns}/${name}.${method}: ${body.error}`);
    return { value: body.value, wallMs, cpuMs, workerMs: body.workerMs };
  }

  /** For `ctx.abort()`: the call is expected to fail. */
  async callExpectingError(ns: Ns, name: string, method: string): Promise<void> {
    const res = await fetch(`${this.srv.url}/call`, { method: "POST", body: JSON.stringify({ ns, name, method }) });
    await res.arrayBuffer();
  }

  async empty(ns: Ns, name: string): Promise<void> {
    const r = await this.call(ns, name, ns === "BENCH_SESSION" ? "benchEmpty" : "empty");
    const e = this.#empties.get(ns) ?? { cpu: [], wall: [] };
    e.cpu.push(r.cpuMs);
    e.wall.push(r.wallMs);
    this.#empties.set(ns, e);
  }

  baseline(ns: Ns): { cpu: number; wall: number } {
    const e = this.#empties.get(ns);
    if (!e) return { cpu: 0, wall: 0 };
    return { cpu: stat(e.cpu.slice(-30)).median, wall: stat(e.wall.slice(-30)).median };
  }

  /** Per-operation cost of one timed call that did `ops` operations. */
  perOp(ns: Ns, r: CallResult<unknown>, ops: number, scale = 1): { cpu: number; wall: number } {
    const b = this.baseline(ns);
    return { cpu: (Math.max(0, r.cpuMs - b.cpu) * scale) / ops, wall: (Math.max(0, r.wallMs - b.wall) * scale) / ops };
  }
}

/** Runs `once` 1 + RUNS times (the first is a warm-up) and gathers the per-op samples. */
async function measure(unit: string, once: (run: number) => Promise<{ cpu: number; wall: number }>): Promise<Cost> {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const s = await once(run);
    if (run === 0) continue;
    cpu.push(s.cpu);
    wall.push(s.wall);
  }
  return { cpu: stat(cpu), wall: stat(wall), unit };
}

// ---- storage: append, raw insert, peers --------------------------------------------------

type StorageResults = {
  raw: Record<number, Cost>;
  rawHashed: Record<number, Cost>;
  group8: Record<number, Cost>;
  ours: Record<number, Cost>;
  agents: Record<number, Cost>;
  readTail: Record<number, Cost>;
  chat: Record<number, Cost>;
  profile: Record<string, Cost>;
  rpcOneAppend: Cost;
  sizes: Record<string, unknown>;
};

/**
 * Pre-fills (untimed) what the append contest needs: our log and the raw table, and the
 * agents peer. The other objects are filled after the contest, so that their data (one
 * isolate serves every object of the Worker) does not make the contest's garbage
 * collections dearer.
 */
async function fillContest(b: Bench) {
  for (const size of SIZES) {
    const t0 = Date.now();
    // In chunks of 20k: a call that runs for seconds can make wrangler restart workerd.
    let info = { events: 0, raw: 0 };
    let agents = 0;
    for (let target = Math.min(size, 20_000); ; target = Math.min(size, target + 20_000)) {
      info = (await b.call<{ events: number; raw: number }>("BENCH_LOG", `log-${size}`, "fill", [target])).value;
      agents = (await b.call<number>("BENCH_AGENTS", `agents-${size}`, "fill", [target])).value;
      if (target >= size) break;
    }
    log(
      `filled ${size}: log ${info.events} (+raw ${info.raw}), agents ${agents} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
}

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
  await fill("commit-1000", 1_000);
}

async function storage(b: Bench): Promise<StorageResults> {
  const out: StorageResults = {
    raw: {},
    rawHashed: {},
    group8: {},
    ours: {},
    agents: {},
    readTail: {},
    chat: {},
    profile: {},
    rpcOneAppend: { cpu: stat([0]), wall: stat([0]), unit: "ms" },
    sizes: {},
  };
  type Contender = "raw" | "rawHashed" | "ours" | "group8" | "agents";
  const contenders: Contender[] = ["raw", "rawHashed", "ours", "group8", "agents"];
  for (const size of SIZES) {
    const obj = `log-${size}`;
    const peer = `agents-${size}`;
    const peerTruncated = (STORAGE_RUNS + 1) * BATCH.agents >= 0.1 * size;
    const samples = Object.fromEntries(contenders.map((c) => [c, []])) as unknown as Record<
      Contender,
      { cpu: number; wall: number }[]
    >;
    const timed = async (c: Contender) => {
      if (c === "agents") {
        await b.empty("BENCH_AGENTS", peer);
        const r = await b.call<{ ids: string[] }>("BENCH_AGENTS", peer, "append", [BATCH.agents]);
        // The peer's own deleteMessages rewires children through an unindexed parent_id: at
        // 100k it runs for seconds. Where the whole contest grows the peer by under 10%
        // (100k), it is not truncated at all.
        if (peerTruncated) await b.call("BENCH_AGENTS", peer, "truncate", [r.value.ids]);
        return b.perOp("BENCH_AGENTS", r, BATCH.agents, 1000);
      }
      await b.empty("BENCH_LOG", obj);
      const k = BATCH[c];
      const [method, args] =
        c === "raw"
          ? ["appendRaw", [k]]
          : c === "rawHashed"
            ? ["appendRawHashed", [k]]
            : c === "group8"
              ? ["appendOursGroup", [k, 8]]
              : ["appendOurs", [k]];
      const r = await b.call("BENCH_LOG", obj, method, args);
      await b.call("BENCH_LOG", obj, "truncate", [size, size]);
      return b.perOp("BENCH_LOG", r, k, 1000); // µs per event
    };
    for (let run = 0; run <= STORAGE_RUNS; run++) {
      // Interleaved, in an order that rotates every run, so drift in machine load and whatever
      // one contender leaves behind (garbage, a checkpoint) touch every contender alike.
      // Truncated after each call, so every batch starts at the same log size.
      for (let i = 0; i < contenders.length; i++) {
        const c = contenders[(run + i) % contenders.length]!;
        const s = await timed(c);
        if (run > 0) samples[c].push(s);
      }
    }
    for (const k of contenders) {
      out[k][size] = {
        cpu: stat(samples[k].map((s) => s.cpu)),
        wall: stat(samples[k].map((s) => s.wall)),
        unit: "µs",
      };
    }
    out.readTail[size] = await measure("ms", async () => {
      await b.empty("BENCH_LOG", obj);
      return b.perOp("BENCH_LOG", await b.call("BENCH_LOG", obj, "readTail", [200, BATCH.readTail]), BATCH.readTail);
    });
    const info = await b.call<Record<string, number>>("BENCH_LOG", obj, "info");
    const agentCount = await b.call<number>("BENCH_AGENTS", peer, "count");
    const agentBytes = await b.call<number>("BENCH_AGENTS", peer, "storedBytes");
    out.sizes[size] = { ...info.value, agentsMessages: agentCount.value, agentsMessageBytes: agentBytes.value };
    log(
      `append @${size}: raw ${out.raw[size]!.cpu.median.toFixed(1)} µs, ours ${out.ours[size]!.cpu.median.toFixed(1)} µs, agents ${out.agents[size]!.cpu.median.toFixed(1)} µs (CPU)`,
    );
  }

  for (const size of CHAT_SIZES) await b.call("BENCH_CHAT", `chat-${size}`, "fill", [size]);
  for (const size of CHAT_SIZES) {
    const obj = `chat-${size}`;
    const k = CHAT_BATCH[size];
    out.chat[size] = await measure("ms", async () => {
      await b.empty("BENCH_CHAT", obj);
      const r = await b.call<{ count: number }>("BENCH_CHAT", obj, "persistOne", [k]);
      const back = await b.call<number>("BENCH_CHAT", obj, "truncate", [size]);
      if (back.value !== size) throw new Error(`chat truncate: ${back.value} messages, expected ${size}`);
      return b.perOp("BENCH_CHAT", r, k);
    });
    log(`ai-chat persistMessages @${size}: ${out.chat[size]!.cpu.median.toFixed(2)} ms (CPU)`);
  }

  // Where an append's time goes (10k events), for the analysis of a miss.
  const phases = ["canonical", "hash", "insertPlain", "insertIndexed", "insertIndexedTxn", "txnEmpty", "append"];
  const K = 3_000;
  for (const phase of phases) {
    out.profile[phase] = await measure("µs", async () => {
      await b.empty("BENCH_LOG", "log-10000");
      const r = await b.call("BENCH_LOG", "log-10000", "profile", [phase, K]);
      if (phase === "append") await b.call("BENCH_LOG", "log-10000", "truncate", [10_000, 10_000]);
      return b.perOp("BENCH_LOG", r, K, 1000);
    });
  }

  // Latency of one Worker → object RPC that commits one append, timed in the Worker around
  // `n` sequential awaited RPCs (its clock moves in milliseconds).
  out.rpcOneAppend = await measure("ms", async () => {
    const n = 100;
    const r = await b.call("BENCH_LOG", "log-1000", "appendOurs", [1], n);
    await b.call("BENCH_LOG", "log-1000", "truncate", [1_000, 1_000]);
    return { cpu: r.cpuMs / n, wall: r.workerMs / n };
  });
  return out;
}

// ---- context build and recovery -----------------------------------------------------------

type RowCount = { statements: number; rowsRead: number; rowsWritten: number };
type ContextAnswer = {
  inObjectMs: number;
  rows: RowCount;
  messages: number;
  rawFromSeq: number;
  checkpoint: string | null;
};
type RecoverAnswer = {
  construct: { ms: number; rows: RowCount } | null;
  planMs: number;
  planRows: RowCount;
  problems: string[];
  plan: { interrupted: string[]; closed: boolean };
  highWater: number;
};

type ContextResults = {
  /** SessionRuntime.commit of one event, µs (the log grows from 1k over the runs). */
  commit: Cost;
  build: Record<number, Cost & { rowsRead: number; messages: number; rawFromSeq: number; checkpoint: string | null }>;
  recover: Record<number, Cost & { peakMB: Stat; rowsRead: number; statements: number; interrupted: string[] }>;
  memory: {
    /** Peak RSS growth of the first request to a 100k-event session on a freshly started workerd. */
    coldPeakMB: number;
    coldRssBeforeMB: number;
    contextPeakMB: number;
    coldWake: { cpuMs: number; wallMs: number };
    clearRefs: boolean;
    takeoverPeakMB: number;
    takeoverMs: number;
  };
};

async function context(b: Bench): Promise<ContextResults> {
  const out: ContextResults = {
    commit: await measure("µs", async () => {
      await b.empty("BENCH_SESSION", "commit-1000");
      const r = await b.call("BENCH_SESSION", "commit-1000", "benchCommit", [BATCH.commit]);
      return b.perOp("BENCH_SESSION", r, BATCH.commit, 1000);
    }),
    build: {},
    recover: {},
    memory: {
      coldPeakMB: Number.NaN,
      coldRssBeforeMB: Number.NaN,
      contextPeakMB: Number.NaN,
      coldWake: { cpuMs: Number.NaN, wallMs: Number.NaN },
      clearRefs: false,
      takeoverPeakMB: Number.NaN,
      takeoverMs: Number.NaN,
    },
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
async function coldMemory(b: Bench, persistTo: string, out: ContextResults) {
  const size = SIZES[SIZES.length - 1]!;
  const obj = `ctx-${size}`;
  await b.srv.stop();
  b.srv = await startBenchWorker(persistTo);
  // Load the script (one isolate serves all the Worker's objects), then reset the peak.
  for (let i = 0; i < 3; i++) await b.empty("BENCH_LOG", "warm");
  await sleep(200);
  const pid = b.srv.workerd;
  out.memory.clearRefs = resetPeak(pid);
  const before = memory(pid);
  const r = await b.call<RecoverAnswer>("BENCH_SESSION", obj, "benchRecover");
  out.memory.coldPeakMB = (memory(pid).hwm - before.rss) / MB;
  out.memory.coldRssBeforeMB = before.rss / MB;
  out.memory.coldWake = { cpuMs: r.cpuMs, wallMs: r.wallMs };
  resetPeak(pid);
  const beforeCtx = memory(pid);
  await b.call<ContextAnswer>("BENCH_SESSION", obj, "benchContext", [1]);
  out.memory.contextPeakMB = (memory(pid).hwm - beforeCtx.rss) / MB;
  // The real takeover (item 5) on this fresh process, where the heap has no slack left by earlier phases.
  await b.call("BENCH_SESSION", obj, "benchCountNext", [false]); // module state: the next fresh instance
  resetPeak(pid);
  const beforeTake = memory(pid);
  const take = await b.call<TakeoverAnswer>("BENCH_SESSION", "rec-100000", "benchTakeover");
  out.memory.takeoverPeakMB = (memory(pid).hwm - beforeTake.rss) / MB;
  out.memory.takeoverMs = take.value.toRequestMs;
  log(
    `cold wake @${size}: ${r.wallMs.toFixed(1)} ms, peak +${out.memory.coldPeakMB.toFixed(1)} MB (recovery), +${out.memory.contextPeakMB.toFixed(1)} MB (context build)`,
  );
}

// ---- durable steps against Restate; runtime overhead per step (issue 12, items 1 and 2) ---

/** Durable steps per timed turn / invocation, and how many timed runs (after a warm-up). */
const STEPS_N = 50;
const STEP_RUNS = 11;
/** Agent steps (answer → tool → next request) per timed turn in the overhead bench. */
const OVERHEAD_K = 20;
const OVERHEAD_RUNS = 7;

type PerStep = { wall: Stat; cpu: Stat; p50: number; p99: number; unit: string };

function perStepOf(
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
  return { wall: stat(wall), cpu: stat(cpu), p50: percentile(wall, 50), p99: percentile(wall, 99), unit: "ms" };
}

type StepResults = {
  restate: PerStep & { inHandler: { p50: number; p99: number; steps: number }; durability: Record<string, string> };
  ours: PerStep & { requests: number; rows: RowsPerStep };
  overhead: Record<string, PerStep & { events: number[]; inObject: { p50: number; p99: number }; rows: RowsPerStep }>;
};

const OVERHEAD_SESSIONS = [
  { key: "1k", name: "step-1000", size: 1_000, shape: { open: "none", tail: 200, offloads: 0 } },
  { key: "10k", name: "step-10000", size: 10_000, shape: { open: "none", tail: 200, offloads: 0 } },
  { key: "100k", name: "step-100000", size: 100_000, shape: { open: "none", tail: 200, offloads: 0 } },
  // Same size and the same 2,400 events since the checkpoint; 3 or 300 of their results offloaded.
  { key: "off3", name: "off-3", size: 10_000, shape: { open: "none", tail: 2_400, offloads: 3 } },
  { key: "off300", name: "off-300", size: 10_000, shape: { open: "none", tail: 2_400, offloads: 300 } },
] as const;

async function fillShaped(b: Bench, name: string, size: number, shape: Record<string, unknown>) {
  const t0 = Date.now();
  for (;;) {
    const r = await b.call<{ done: boolean; events: number; offloaded?: number }>("BENCH_SESSION", name, "benchFill", [
      size,
      { contextWindow: 1_000_000, ...shape },
    ]);
    if (r.value.done) {
      log(
        `filled ${name}: ${r.value.events} events, ${r.value.offloaded ?? 0} offloaded, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      break;
    }
  }
  // The fill wrote behind the object's runtime: the next call must meet a fresh instance.
  await b.callExpectingError("BENCH_SESSION", name, "benchAbort");
}

type TurnAnswer = {
  requests: number;
  gapsMs: number[];
  slices: number;
  highWater: number;
  rows: { read: number; written: number };
};

/** Rows per step: (rows of a turn of n steps − median rows of a turn of none) / n, median over runs. */
type RowsPerStep = { read: number; written: number };
function rowsPerStepOf(withN: RowsPerStep[], without: RowsPerStep[], n: number): RowsPerStep {
  const r0 = stat(without.map((x) => x.read)).median;
  const w0 = stat(without.map((x) => x.written)).median;
  return {
    read: stat(withN.map((x) => Math.max(0, x.read - r0) / n)).median,
    written: stat(withN.map((x) => Math.max(0, x.written - w0) / n)).median,
  };
}

async function steps(b: Bench): Promise<StepResults> {
  const restate = await startRestate();
  log(`restate-server up; durability as configured: ${JSON.stringify(restate.durability)}`);
  try {
    const peer = "steps-peer";
    await b.call("BENCH_SESSION", peer, "benchTurn", [1, 2]); // creates the session; warm-up
    const rN: { wall: number; cpu: number }[] = [];
    const r0: { wall: number; cpu: number }[] = [];
    const hN: { wall: number; cpu: number }[] = [];
    const h0: { wall: number; cpu: number }[] = [];
    const gaps: number[] = [];
    const rowsN: RowsPerStep[] = [];
    const rows0: RowsPerStep[] = [];
    let requests = 0;
    for (let run = 0; run <= STEP_RUNS; run++) {
      // Interleaved, so drift in machine load touches both sides alike.
      const a = await restate.invoke(STEPS_N);
      const z = await restate.invoke(0);
      await b.empty("BENCH_SESSION", peer);
      const t = await b.call<TurnAnswer>("BENCH_SESSION", peer, "benchTurn", [1, STEPS_N]);
      const t0 = await b.call<TurnAnswer>("BENCH_SESSION", peer, "benchTurn", [0, 1]);
      if (run === 0) continue;
      rN.push({ wall: a.wallMs, cpu: a.cpuMs });
      r0.push({ wall: z.wallMs, cpu: z.cpuMs });
      const base = b.baseline("BENCH_SESSION");
      hN.push({ wall: t.wallMs - base.wall, cpu: t.cpuMs - base.cpu });
      h0.push({ wall: t0.wallMs - base.wall, cpu: t0.cpuMs - base.cpu });
      gaps.push(...a.gapsNs.map((g) => g / 1e6));
      rowsN.push(t.value.rows);
      rows0.push(t0.value.rows);
      requests = t.value.requests;
    }
    const out: StepResults = {
      restate: {
        ...perStepOf(rN, r0, STEPS_N),
        inHandler: { p50: percentile(gaps, 50), p99: percentile(gaps, 99), steps: gaps.length },
        durability: restate.durability,
      },
      ours: { ...perStepOf(hN, h0, STEPS_N), requests, rows: rowsPerStepOf(rowsN, rows0, STEPS_N) },
      overhead: {},
    };
    log(
      `durable step: restate ${out.restate.wall.median.toFixed(3)} ms (in handler p50 ${out.restate.inHandler.p50.toFixed(2)}), ours ${out.ours.wall.median.toFixed(3)} ms`,
    );
    await restate.stop();

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
      out.overhead[o.key] = {
        ...perStepOf(withK, without, OVERHEAD_K),
        events,
        inObject: { p50: percentile(inObject, 50), p99: percentile(inObject, 99) },
        rows: rowsPerStepOf(rowsK, rowsNone, OVERHEAD_K),
      };
      log(
        `step overhead ${o.key}: ${out.overhead[o.key]!.cpu.median.toFixed(3)} ms CPU, ${out.overhead[o.key]!.wall.median.toFixed(3)} ms wall per step`,
      );
    }
    return out;
  } finally {
    await restate.stop();
  }
}

// ---- recovery on the real path (item 5), cold start (item 6), whole turns (item 4) --------

type TakeoverAnswer = {
  constructMs: number;
  constructRows: RowCount & { bytesRead?: number };
  toRequestMs: number;
  alarmToRequestMs: number;
  rows: (RowCount & { bytesRead?: number }) | null;
  requests: number;
  closed: boolean;
};
type TakeoverResults = Record<
  "warm" | "cold",
  { ms: Stat; alarmMs: Stat; cpu: Stat; peakMB: Stat; rowsRead: number; bytesRead: number; statements: number }
>;

async function takeovers(b: Bench): Promise<TakeoverResults> {
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

type ColdStart = {
  bundleGzipBytes: number;
  bundleBytes: number;
  first: Record<string, { wall: Stat; cpu: Stat; constructMs: Stat }>;
};

async function coldStart(b: Bench): Promise<ColdStart> {
  const first: ColdStart["first"] = {};
  for (const [key, name] of [
    ["1k", "step-1000"],
    ["100k", "step-100000"],
  ] as const) {
    const wall: number[] = [];
    const cpu: number[] = [];
    const cons: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      await b.callExpectingError("BENCH_SESSION", name, "benchAbort");
      await b.call("BENCH_LOG", "warm", "empty");
      await b.empty("BENCH_LOG", "warm");
      const r = await b.call<{ constructMs: number; getSessionMs: number; ok: boolean }>(
        "BENCH_SESSION",
        name,
        "benchFirstSession",
      );
      if (!r.value.ok) throw new Error(`first getSession on ${name} failed`);
      if (run === 0) continue;
      const base = b.baseline("BENCH_LOG");
      wall.push(r.wallMs - base.wall);
      cpu.push(r.cpuMs - base.cpu);
      cons.push(r.value.constructMs);
    }
    first[key] = { wall: stat(wall), cpu: stat(cpu), constructMs: stat(cons) };
  }
  return { bundleGzipBytes: Number.NaN, bundleBytes: Number.NaN, first };
}

/**
 * The Worker as deployed: wrangler's dry-run bundle of the app, gzipped. Run while no bench
 * Worker is up: the dry run writes under the tree, which `wrangler dev` would reload on.
 */
function bundleSize(): { bundleGzipBytes: number; bundleBytes: number } {
  const outdir = scratchDir("hw-bench-bundle-");
  execFileSync(join(REPO_ROOT, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...QUIET_WRANGLER_ENV },
    stdio: "ignore",
  });
  let bundleBytes = 0;
  let bundleGzipBytes = 0;
  for (const f of readdirSync(outdir)) {
    if (!/\.(m?js|wasm)$/.test(f)) continue;
    const bytes = readFileSync(join(outdir, f));
    bundleBytes += bytes.length;
    bundleGzipBytes += gzipSync(bytes).length;
  }
  return { bundleGzipBytes, bundleBytes };
}

async function wholeTurns(b: Bench): Promise<Cost> {
  return measure("ms", async () => {
    await b.empty("BENCH_SESSION", "commit-1000");
    const r = await b.call("BENCH_SESSION", "commit-1000", "benchTurnCommits", [BATCH.turns]);
    return b.perOp("BENCH_SESSION", r, BATCH.turns);
  });
}

// ---- the real app: restart → continued model call ------------------------------------------

async function api(w: Wrangler, method: string, path: string, body?: unknown) {
  const res = await fetch(`${w.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Polls /healthz every 20 ms until it answers 200: the moment a (re)started app is ready. */
async function firstHealthy(url: string, stop: AbortSignal): Promise<number> {
  while (!stop.aborted) {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.ok) return Date.now();
    } catch {}
    await sleep(20);
  }
  return Number.NaN;
}

type RestartResults = { fromConstruct: Stat; fromReady: Stat; fromSpawn: Stat; completed: number; runs: number };

/**
 * RUNS crash cycles on one app and one --persist-to: a message whose model call hangs
 * mid-stream, kill -9 of the whole process group while it hangs, a restart, and the time
 * until the fake provider receives the continued call. The fake hangs every even-numbered
 * request and answers every odd one (the continuation), so each cycle starts idle.
 */
export async function restart(): Promise<RestartResults> {
  const fromConstruct: number[] = [];
  const fromReady: number[] = [];
  const fromSpawn: number[] = [];
  let completed = 0;
  const fake: FakeOpenAI = await startFakeOpenAI((_body, index) =>
    index % 2 === 0 ? { text: "never finishes", hangAfterChunks: 2 } : { text: "continued after the restart" },
  );
  const persistTo = scratchDir("hw-bench-restart-");
  // Where the session object reports when it was constructed (bench/app.ts, HW_BENCH_CLOCK_URL).
  const clocks: number[] = [];
  const clockServer = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      clocks.push(Number(body));
      res.end("ok");
    });
  });
  await new Promise<void>((r) => clockServer.listen(0, "127.0.0.1", () => r()));
  const clockUrl = `http://127.0.0.1:${(clockServer.address() as AddressInfo).port}/clock`;
  const vars = {
    API_TOKENS: TOKEN,
    MODEL_BASE_URL: fake.url,
    MODEL_API_KEY: "x",
    MODEL_NAME: "fake-model",
    HW_BENCH_CLOCK_URL: clockUrl,
  };
  const config = benchAppConfig("restart");
  let w = await startWrangler({ persistTo, config, vars, env: QUIET_WRANGLER_ENV });
  try {
    const id = String((await api(w, "POST", "/v1/sessions", { title: "restart" })).id);
    for (let run = 0; run < RUNS; run++) {
      await api(w, "POST", `/v1/sessions/${id}/messages`, { text: `Summarize the plan (${run}).` });
      await fake.waitForRequests(2 * run + 1, 60_000);
      await w.kill9();
      // Same machine, same --persist-to; the port is ours so that we can watch it come up.
      const port = await freePort();
      let inspectorPort = await freePort();
      while (inspectorPort === port) inspectorPort = await freePort();
      const watching = new AbortController();
      clocks.length = 0;
      const spawnedAt = Date.now();
      const healthy = firstHealthy(`http://127.0.0.1:${port}`, watching.signal);
      w = await startWrangler({ persistTo, config, vars, port, inspectorPort, env: QUIET_WRANGLER_ENV });
      const readyAt = await healthy;
      watching.abort();
      const continued = (await fake.waitForRequests(2 * run + 2, 60_000))[2 * run + 1]!;
      // The session object's own clock (HW_BENCH_CLOCK): when it was constructed on the new process.
      // The session object's constructor on the new process reports its own Date.now() (HW_BENCH_CLOCK_URL).
      for (let i = 0; i < 100 && clocks.length === 0; i++) await sleep(50);
      const constructedAt = clocks[0] ?? Number.NaN;
      fromConstruct.push(continued.at - constructedAt);
      fromReady.push(continued.at - readyAt);
      fromSpawn.push(continued.at - spawnedAt);
      for (let i = 0; i < 300; i++) {
        const s = await api(w, "GET", `/v1/sessions/${id}`);
        if (!s.openTurn) {
          if (s.status === "idle") completed++;
          break;
        }
        await sleep(100);
      }
      log(
        `restart ${run + 1}: continued call ${fromConstruct.at(-1)} ms after the object's constructor, ${fromReady.at(-1)} ms after /healthz, ${fromSpawn.at(-1)} ms after spawn`,
      );
    }
  } finally {
    await w.stop();
    await fake.close();
    clockServer.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
  return {
    fromConstruct: stat(fromConstruct),
    fromReady: stat(fromReady),
    fromSpawn: stat(fromSpawn),
    completed,
    runs: RUNS,
  };
}

// ---- the real app: WebSocket fan-out --------------------------------------------------------

type Received = { seq: number; digest: string; at: string; recvAt: number };

type Client = { socket: WebSocket; events: Received[]; ready: Promise<void>; after?: number };

function connect(w: Wrangler, id: string, after?: number): Client {
  const q = after === undefined ? "" : `?after=${after}`;
  const socket = new WebSocket(`${w.url.replace(/^http/, "ws")}/v1/sessions/${id}/ws${q}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const events: Received[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    socket.once("error", reject);
  });
  socket.on("message", (data) => {
    const recvAt = Date.now();
    const frame = JSON.parse(data.toString()) as { type: string; event?: { seq: number; digest: string; at: string } };
    if (frame.type === "ready") markReady();
    if (frame.type === "event" && frame.event) events.push({ ...frame.event, recvAt });
  });
  return { socket, events, ready, after };
}

type FanoutRun = { p50: number; p99: number; clients: number; inOrder: number; events: number; deliveries: number };
type FanoutResults = {
  sessions: number;
  clients: number;
  runs: FanoutRun[];
  p50: Stat;
  p99: Stat;
  allInOrder: boolean;
};

async function fanoutOnce(w: Wrangler, sessions: number, perSession: number): Promise<FanoutRun> {
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) ids.push(String((await api(w, "POST", "/v1/sessions", { title: `fan-${i}` })).id));
  const clients = new Map<string, Client[]>();
  for (const id of ids)
    clients.set(
      id,
      Array.from({ length: perSession }, () => connect(w, id)),
    );
  await Promise.all([...clients.values()].flat().map((c) => c.ready));
  const starts = new Map<string, number>();
  await Promise.all(
    ids.map(async (id) => {
      const r = await api(w, "POST", `/v1/sessions/${id}/messages`, { text: "Plan a trip to Lisbon." });
      starts.set(id, Number(r.seq));
    }),
  );
  const latencies: number[] = [];
  let inOrder = 0;
  let deliveries = 0;
  let events = 0;
  for (const id of ids) {
    let highWater = 0;
    for (let i = 0; ; i++) {
      const s = await api(w, "GET", `/v1/sessions/${id}`);
      if (!s.openTurn) {
        highWater = Number(s.highWater);
        break;
      }
      if (i > 600) throw new Error(`fan-out: session ${id} did not finish its turn`);
      await sleep(100);
    }
    const log = (await api(w, "GET", `/v1/sessions/${id}/events?after=0&limit=1000`)) as unknown as {
      events: { seq: number; digest: string }[];
    };
    events += highWater;
    for (const c of clients.get(id)!) {
      for (let i = 0; i < 100 && (c.events.at(-1)?.seq ?? 0) < highWater; i++) await sleep(50);
      const ok =
        c.events.length === highWater &&
        c.events.every((e, i) => e.seq === i + 1 && e.digest === log.events[i]?.digest);
      if (ok) inOrder++;
      deliveries += c.events.length;
      for (const e of c.events) if (e.seq >= starts.get(id)!) latencies.push(e.recvAt - Date.parse(e.at));
    }
  }
  for (const c of [...clients.values()].flat()) c.socket.close();
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    clients: sessions * perSession,
    inOrder,
    events,
    deliveries,
  };
}

export async function fanout(): Promise<FanoutResults[]> {
  const persistTo = scratchDir("hw-bench-fanout-");
  const w = await startWrangler({ persistTo, vars: { API_TOKENS: TOKEN }, env: QUIET_WRANGLER_ENV });
  const out: FanoutResults[] = [];
  try {
    for (const [sessions, perSession] of [
      [1, 50],
      [20, 5],
    ] as const) {
      const runs: FanoutRun[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const r = await fanoutOnce(w, sessions, perSession);
        if (run > 0) runs.push(r);
        log(
          `fan-out ${sessions}×${perSession} run ${run}: p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.inOrder}/${r.clients} clients complete and in order`,
        );
      }
      out.push({
        sessions,
        clients: perSession,
        runs,
        p50: stat(runs.map((r) => r.p50)),
        p99: stat(runs.map((r) => r.p99)),
        allInOrder: runs.every((r) => r.inOrder === r.clients),
      });
    }
  } finally {
    await w.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
  return out;
}

// ---- reconnect storm (item 7) ----------------------------------------------------------------

type StormResults = { clients: number; exactlyOnce: number; events: number; catchUp: { p50: number; p99: number } };

/**
 * 50 clients on one session; while its turn runs (a fake model that answers six no-op tool
 * calls, 150 ms apart, then streams its text), all of them drop their socket at once and
 * reconnect with `after` = the last seq each saw. Each must end with every event exactly once,
 * in order (digests checked against the log).
 */
export async function reconnectStorm(): Promise<StormResults> {
  const clients = 50;
  let requests = 0;
  const fake: FakeOpenAI = await startFakeOpenAI(() =>
    ++requests % 7 !== 0
      ? { toolCalls: [{ name: "list_files", args: {} }], delayMs: 150 }
      : { text: "All done, the storm is over. ".repeat(8), chunkDelayMs: 30 },
  );
  const persistTo = scratchDir("hw-bench-storm-");
  const vars = { API_TOKENS: TOKEN, MODEL_BASE_URL: fake.url, MODEL_API_KEY: "x", MODEL_NAME: "fake-model" };
  const w = await startWrangler({ persistTo, vars, env: QUIET_WRANGLER_ENV });
  try {
    const id = String((await api(w, "POST", "/v1/sessions", { title: "storm" })).id);
    const first = Array.from({ length: clients }, () => connect(w, id));
    await Promise.all(first.map((c) => c.ready));
    await api(w, "POST", `/v1/sessions/${id}/messages`, { text: "Weather the storm." });
    // Mid-turn: once every client has seen the first model request.
    for (let i = 0; i < 200 && first.some((c) => c.events.length < 3); i++) await sleep(20);
    const second: Client[] = [];
    const catchUp: number[] = [];
    await Promise.all(
      first.map(async (c) => {
        c.socket.close();
        const after = c.events.at(-1)?.seq ?? 0;
        const t0 = Date.now();
        const again = connect(w, id, after);
        second.push(again);
        await again.ready;
        catchUp.push(Date.now() - t0);
      }),
    );
    let highWater = 0;
    for (let i = 0; ; i++) {
      const s = await api(w, "GET", `/v1/sessions/${id}`);
      if (!s.openTurn) {
        highWater = Number(s.highWater);
        break;
      }
      if (i > 600) throw new Error("storm: the turn did not finish");
      await sleep(100);
    }
    const log = (await api(w, "GET", `/v1/sessions/${id}/events?after=0&limit=1000`)) as unknown as {
      events: { seq: number; digest: string }[];
    };
    let exactlyOnce = 0;
    for (let i = 0; i < clients; i++) {
      const a = first[i]!;
      const b = second[i]!; // pushed in the order of `first`, before any await
      for (let j = 0; j < 100 && (b.events.at(-1)?.seq ?? a.events.at(-1)?.seq ?? 0) < highWater; j++) await sleep(50);
      const all = [...a.events, ...b.events];
      if (all.length === highWater && all.every((e, k) => e.seq === k + 1 && e.digest === log.events[k]?.digest))
        exactlyOnce++;
    }
    for (const c of second) c.socket.close();
    return {
      clients,
      exactlyOnce,
      events: highWater,
      catchUp: { p50: percentile(catchUp, 50), p99: percentile(catchUp, 99) },
    };
  } finally {
    await w.stop();
    await fake.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

// ---- what a step costs in dollars -----------------------------------------------------------

/**
 * Cloudflare's published prices (Workers Paid, beyond the included amounts), as of this bench:
 * Durable Objects bill duration (wall clock while active, at 128 MB), requests, rows read and rows
 * written; a Worker bills CPU time. A step inside a turn is no request of its own (the turn's
 * alarm slices are), so the per-step cost is duration + rows; the CPU price is shown beside it
 * for the same work billed as Worker CPU.
 */
export const PRICES = {
  source:
    "https://developers.cloudflare.com/durable-objects/platform/pricing/ ; https://developers.cloudflare.com/workers/platform/pricing/",
  durationPerMillionGbS: 12.5,
  objectMemoryGb: 0.128,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  requestsPerMillion: 0.15,
  workerCpuPerMillionMs: 0.02,
} as const;

/** Dollars per 1,000 steps: duration at the wall time, rows read and written, and (apart) CPU as a Worker bills it. */
export function dollarsPer1000Steps(step: { wallMs: number; cpuMs: number; rowsRead: number; rowsWritten: number }) {
  const duration = (step.wallMs / 1000) * PRICES.objectMemoryGb * (PRICES.durationPerMillionGbS / 1e6);
  const read = step.rowsRead * (PRICES.rowsReadPerMillion / 1e6);
  const written = step.rowsWritten * (PRICES.rowsWrittenPerMillion / 1e6);
  const cpu = step.cpuMs * (PRICES.workerCpuPerMillionMs / 1e6);
  return {
    duration: duration * 1000,
    read: read * 1000,
    written: written * 1000,
    total: (duration + read + written) * 1000,
    cpu: cpu * 1000,
  };
}

function costTable(stepR: StepResults) {
  info(
    "cost: prices used (USD)",
    `duration $${PRICES.durationPerMillionGbS}/M GB-s at ${PRICES.objectMemoryGb} GB; rows read $${PRICES.rowsReadPerMillion}/M; rows written $${PRICES.rowsWrittenPerMillion}/M; requests $${PRICES.requestsPerMillion}/M; Worker CPU $${PRICES.workerCpuPerMillionMs}/M ms`,
    "",
    PRICES.source,
  );
  const line = (label: string, r: PerStep & { rows: RowsPerStep }) => {
    const d = dollarsPer1000Steps({
      wallMs: r.wall.median,
      cpuMs: r.cpu.median,
      rowsRead: r.rows.read,
      rowsWritten: r.rows.written,
    });
    info(
      `cost: $ per 1,000 steps, ${label} (duration + rows read + rows written)`,
      `$${d.total.toExponential(2)}`,
      "",
      `duration $${d.duration.toExponential(2)} + read $${d.read.toExponential(2)} + written $${d.written.toExponential(2)}; as Worker CPU $${d.cpu.toExponential(2)}`,
    );
  };
  line("durable tool step", stepR.ours);
  for (const key of ["1k", "100k", "off300"])
    if (stepR.overhead[key]) line(`model step overhead @${key}`, stepR.overhead[key]!);
}

// ---- the table ------------------------------------------------------------------------------

type Row = { measure: string; value: string; wall: string; ratio: string; target: string; met: string };
const rows: Row[] = [];
let targets = 0;
let met = 0;

const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
const span = (s: Stat, d = 2) => `${fmt(s.median, d)} [${fmt(s.min, d)} … ${fmt(s.max, d)}]`;

function info(measure: string, value: string, wall = "", ratio = "") {
  rows.push({ measure, value, wall, ratio, target: "", met: "" });
}

function target(measure: string, value: string, ratio: string, goal: string, ok: boolean) {
  targets++;
  if (ok) met++;
  rows.push({ measure, value, wall: "", ratio, target: goal, met: ok ? "yes" : "NO" });
}

function printTable() {
  const head: Row = {
    measure: "measure",
    value: "median [min … max]",
    wall: "wall median",
    ratio: "ratio",
    target: "target",
    met: "met",
  };
  const all = [head, ...rows];
  const keys = ["measure", "value", "wall", "ratio", "target", "met"] as const;
  console.log(
    `Costs: CPU time of the Worker's workerd per operation (all threads), median of ${STORAGE_RUNS} (append) or ${RUNS} runs, ` +
      `with the wall-clock median beside it; latencies (restart, fan-out, RPC) are wall clock.`,
  );
  const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
  const line = (r: Row) =>
    keys
      .map((k, i) => r[k].padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
  console.log(`targets met: ${met}/${targets}`);
}

// ---- main -----------------------------------------------------------------------------------

/** The whole bench: measures, prints the table, writes the results. */
export async function main(): Promise<void> {
  if (process.env.HW_BENCH_ONLY === "bytes") return bytesOnly();
  if (process.env.HW_BENCH_ONLY === "profile") {
    const persistTo = scratchDir("hw-bench-profile-");
    const inspector = await freePort();
    const bench = new Bench(await startBenchWorker(persistTo, inspector));
    try {
      await fillShaped(bench, "step-10000", 10_000, { open: "none", tail: 200, offloads: 0 });
      await fillShaped(bench, "rec-100000", 100_000, { open: "long", tail: 200, offloads: 0 });
      await bench.call("BENCH_SESSION", "rec-100000", "benchMark");
      for (const [title, name, args, times] of [
        ["per-step overhead: 20 steps of one no-op call, 10k events", "step-10000", [OVERHEAD_K, 1], 10],
        ["durable steps: 50 no-op calls in one answer", "steps-peer", [1, STEPS_N], 10],
      ] as const) {
        await bench.call("BENCH_SESSION", name, "benchTurn", [...args]);
        const { profile } = await withCpuProfile(inspector, async () => {
          for (let i = 0; i < times; i++) await bench.call("BENCH_SESSION", name, "benchTurn", [...args]);
        });
        console.log(`\n== ${title} (${times} turns)\n${summarize(profile)}`);
      }
      for (const cold of [false, true]) {
        await bench.call("BENCH_SESSION", "rec-100000", "benchRewind", [cold]);
        await bench.callExpectingError("BENCH_SESSION", "rec-100000", "benchAbort");
        const { value, profile } = await withCpuProfile(inspector, () =>
          bench.call<TakeoverAnswer>("BENCH_SESSION", "rec-100000", "benchTakeover"),
        );
        console.log(
          `\n== takeover @100k, summary ${cold ? "cold" : "warm"}: ${value.value.toRequestMs} ms\n${summarize(profile)}`,
        );
      }
    } finally {
      await bench.srv.stop();
    }
    return;
  }
  if (process.env.HW_BENCH_ONLY === "steps") {
    const persistTo = scratchDir("hw-bench-steps-");
    const bench = new Bench(await startBenchWorker(persistTo));
    try {
      await fillSessions(bench);
      const st = await steps(bench);
      const tk = await takeovers(bench);
      const cs = await coldStart(bench);
      const wt = await wholeTurns(bench);
      await bench.srv.stop();
      const storm = await reconnectStorm();
      console.log(JSON.stringify({ st, tk, cs, wt, storm, bundle: bundleSize() }, null, 1));
    } finally {
      await bench.srv.stop();
    }
    return;
  }
  // Where a 10 MiB result's peak comes from: each stage of its path on a fresh workerd.
  if (process.env.HW_BENCH_ONLY === "mem") {
    for (const stop of [1, 2, 3, 9])
      for (const mode of ["ours", "today"] as const)
        console.log(mode, stop, (await tenMiBPeaks(mode, 5, stop)).peaks.map((p) => p.toFixed(1)).join(" "));
    return;
  }
  const started = Date.now();
  const load0 = loadavg();
  const persistTo = scratchDir("hw-bench-");
  log(`bench worker (persist ${persistTo}); ${cpus().length} CPUs, load ${load0.map((l) => l.toFixed(1)).join(" ")}`);
  const bench = new Bench(await startBenchWorker(persistTo));
  let st: StorageResults;
  let ctx: ContextResults;
  let bytes: BytesResults;
  let stepR: StepResults;
  let takeR: TakeoverResults;
  let coldR: ColdStart;
  let turnR: Cost;
  try {
    await fillContest(bench);
    st = await storage(bench);
    await fillSessions(bench);
    ctx = await context(bench);
    stepR = await steps(bench);
    takeR = await takeovers(bench);
    coldR = await coldStart(bench);
    turnR = await wholeTurns(bench);
    await coldMemory(bench, persistTo, ctx);
    bytes = await bytesFigures(bench);
  } catch (err) {
    log(`failed; the bench worker's output ends:\n${bench.srv.logs().slice(-4000)}`);
    throw err;
  } finally {
    await bench.srv.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
  const rs = await restart();
  const fo = await fanout();
  const storm = await reconnectStorm();
  // Last: the dry run writes under the snapshot, which a running `wrangler dev` would reload on.
  Object.assign(coldR, bundleSize());

  // append
  const [small, , large] = SIZES;
  const k = (size: number) => `${size / 1000}k`;
  for (const size of SIZES) {
    const raw = st.raw[size]!;
    const rawHashed = st.rawHashed[size]!;
    const ours = st.ours[size]!;
    const group8 = st.group8[size]!;
    const agents = st.agents[size]!;
    info(`raw INSERT (same bytes, plain table), µs/event @${k(size)}`, span(raw.cpu), fmt(raw.wall.median));
    info(
      `raw INSERT + chain SHA-256 (same bytes, same loop), µs/event @${k(size)}`,
      span(rawHashed.cpu),
      fmt(rawHashed.wall.median),
    );
    info(
      `our append (EventStore.append, 1 event), µs/event @${k(size)}`,
      span(ours.cpu),
      fmt(ours.wall.median),
      `${fmt(ours.cpu.median / rawHashed.cpu.median)}× raw+hash`,
    );
    info(
      `our append, groups of 8 (one transaction each), µs/event @${k(size)}`,
      span(group8.cpu),
      fmt(group8.wall.median),
      `${fmt(group8.cpu.median / ours.cpu.median)}× single`,
    );
    info(
      `agents Sessions.appendMessage, µs/message @${k(size)}`,
      span(agents.cpu),
      fmt(agents.wall.median),
      `${fmt(agents.cpu.median / ours.cpu.median)}× our append`,
    );
  }
  info(
    `our public commit path (SessionRuntime.commit: append + summary + meta), µs/event @1k→${(1_000 + (RUNS + 1) * BATCH.commit) / 1000}k`,
    span(ctx.commit.cpu),
    fmt(ctx.commit.wall.median),
  );
  // Fails if an append does work beyond the INSERT and the hash of its bytes (another statement
  // per event, a read of the head from SQL, a second serialization, a second transaction).
  const worstRaw = Math.max(...SIZES.map((s) => st.ours[s]!.cpu.median / st.rawHashed[s]!.cpu.median));
  target(
    "our append vs raw INSERT + SHA-256 in one loop (worst size)",
    `${fmt(worstRaw)}×`,
    `${fmt(worstRaw)}×`,
    "≤ 1.5×",
    worstRaw <= 1.5,
  );
  // Fails if an append reads anything that grows with the log (a COUNT, a scan for the head).
  const growth = st.ours[large]!.cpu.median / st.ours[small]!.cpu.median;
  target(
    "our append @100k vs @1k",
    `${fmt(st.ours[large]!.cpu.median)} / ${fmt(st.ours[small]!.cpu.median)} µs`,
    `${fmt(growth)}×`,
    "≤ 1.2×",
    growth <= 1.2,
  );
  // What a step really pays per event against the peer's public call. Fails if the summary fold,
  // its meta write or the change check grow (e.g. re-serializing the whole summary per event).
  const commitPeer = st.agents[small]!.cpu.median / ctx.commit.cpu.median;
  target(
    "our public commit path vs agents appendMessage @1k",
    `${fmt(commitPeer)}× faster`,
    `${fmt(commitPeer)}×`,
    "≥ 2× faster",
    commitPeer >= 2,
  );
  info(
    `a whole turn of ours (8 commits through SessionRuntime.commit), ms/turn @1k`,
    span(turnR.cpu, 3),
    fmt(turnR.wall.median, 3),
  );
  for (const size of CHAT_SIZES) {
    const c = st.chat[size]!;
    info(
      `ai-chat persistMessages of the same turn (transcript + 1 message), ms/call @${size}`,
      span(c.cpu),
      fmt(c.wall.median),
      `${fmt(c.cpu.median / turnR.cpu.median, 1)}× our whole turn`,
    );
  }
  const pr = st.profile;
  info("  parts @10k: canonical JSON of one event, µs", span(pr.canonical!.cpu));
  info("  parts @10k: chain SHA-256 (node:crypto createHash), µs", span(pr.hash!.cpu));
  info(
    "  parts @10k: INSERT 8 columns plain / +2 indexes / +transactionSync, µs",
    `${fmt(pr.insertPlain!.cpu.median)} / ${fmt(pr.insertIndexed!.cpu.median)} / ${fmt(pr.insertIndexedTxn!.cpu.median)}`,
  );
  for (const size of SIZES)
    info(
      `read the newest 200 events, ms @${k(size)}`,
      span(st.readTail[size]!.cpu, 3),
      fmt(st.readTail[size]!.wall.median, 3),
    );
  info(
    "Worker→object RPC committing one append, ms (wall timed in the Worker; CPU)",
    span(st.rpcOneAppend.wall, 3),
    "",
    `CPU ${fmt(st.rpcOneAppend.cpu.median, 3)} ms`,
  );

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
  // Fails if a tool step's fixed cost doubles: an extra read of the whole turn suffix per
  // step, a second transaction per commit, an awaited storage round trip between T1 and T2.
  const vsRestate = rr.wall.median / ho.wall.median;
  target(
    "durable step: ours vs Restate (wall per step, median)",
    `${fmt(ho.wall.median, 3)} / ${fmt(rr.wall.median, 3)} ms`,
    `${fmt(vsRestate)}× faster`,
    "≥ 2× faster",
    vsRestate >= 2,
  );

  // runtime overhead per agent step (item 2)
  const ov = stepR.overhead;
  for (const o of OVERHEAD_SESSIONS) {
    const r = ov[o.key]!;
    info(
      `step overhead (answer committed → next request sent), ms/step @${o.key === "off3" ? "10k, 3 offloads" : o.key === "off300" ? "10k, 300 offloads" : o.key}`,
      span(r.cpu, 3),
      fmt(r.wall.median, 3),
      `wall p50 ${fmt(r.p50, 3)} / p99 ${fmt(r.p99, 3)}; rows read / written per step ${fmt(r.rows.read, 1)} / ${fmt(r.rows.written, 1)}; in-object (1 ms clock) p50 ${fmt(r.inObject.p50, 0)} / p99 ${fmt(r.inObject.p99, 0)}; ${r.events[0]}→${r.events.at(-1)} events`,
    );
  }
  costTable(stepR);
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
  info(
    "takeover @100k (warm summary) on a freshly started workerd: ms / peak RSS growth, MB",
    `${fmt(ctx.memory.takeoverMs, 0)} / ${fmt(ctx.memory.takeoverPeakMB, 1)}`,
  );
  const tPeak = Math.max(takeR.warm.peakMB.max, takeR.cold.peakMB.max, ctx.memory.takeoverPeakMB);
  target("takeover @100k: peak workerd RSS growth (worst run)", `${fmt(tPeak, 1)} MB`, "", "< 32 MB", tPeak < 32);

  // cold start (item 6)
  info(
    "Worker bundle (wrangler deploy --dry-run), KiB gzip / raw",
    `${fmt(coldR.bundleGzipBytes / 1024, 0)} / ${fmt(coldR.bundleBytes / 1024, 0)}`,
  );
  for (const key of ["1k", "100k"]) {
    const f = coldR.first[key]!;
    info(
      `cold object: constructor + migrations + first getSession, ms @${key}`,
      span(f.cpu, 2),
      fmt(f.wall.median, 2),
      `constructor in-object ${fmt(f.constructMs.median, 0)} ms (1 ms clock)`,
    );
  }

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
  const m = ctx.memory;
  info(
    "cold wake + recovery plan @100k on a fresh workerd (1 run), ms",
    fmt(m.coldWake.cpuMs),
    fmt(m.coldWake.wallMs),
    `peak +${fmt(m.coldPeakMB, 1)} MB over RSS ${fmt(m.coldRssBeforeMB, 0)} MB`,
  );
  info("context build @100k on that workerd: peak memory growth, MB", fmt(m.contextPeakMB, 1));
  const rowsSmall = ctx.recover[small]!.rowsRead;
  const rowsLarge = ctx.recover[large]!.rowsRead;
  target(
    "wake + recovery @100k: rows read vs @1k (O(suffix))",
    `${rowsLarge} / ${rowsSmall} rows`,
    `${fmt(rowsLarge / Math.max(1, rowsSmall))}×`,
    "≤ 1.2× (flat)",
    rowsLarge <= 1.2 * rowsSmall,
  );
  const peak = Math.max(ctx.recover[large]!.peakMB.max, m.coldPeakMB);
  info("wake + recovery plan @100k: peak workerd memory growth (worst run), MB", fmt(peak, 1));

  // restart. Fails if the woken object takes > 2 s from its constructor to the continued model
  // call (a slow takeover, a lost alarm that waits for the lease, a retry backoff on restart).
  target(
    "restart: object constructor → continued model call, ms (wall, object's clock → fake provider)",
    span(rs.fromConstruct, 0),
    `spawn→call ${fmt(rs.fromSpawn.median, 0)} ms; /healthz→call ${fmt(rs.fromReady.median, 0)} ms`,
    "median < 2000",
    rs.fromConstruct.median >= 0 && rs.fromConstruct.median < 2000 && rs.completed === rs.runs,
  );
  info("  turns completed after the restart", `${rs.completed}/${rs.runs}`);

  // fan-out
  for (const f of fo) {
    const events = f.runs.at(-1)!.events;
    info(`fan-out ${f.sessions}×${f.clients}: commit → client latency p50, ms (wall)`, span(f.p50, 0));
    info(`fan-out ${f.sessions}×${f.clients}: commit → client latency p99, ms (wall)`, span(f.p99, 0));
    target(
      `fan-out ${f.sessions} session(s) × ${f.clients} clients: every event, in order`,
      f.runs.map((r) => `${r.inOrder}/${r.clients}`).join(" "),
      `${events} events/run`,
      "all clients, all runs",
      f.allInOrder,
    );
  }

  // Fails if a socket's catch-up replay and the live pump overlap (a duplicate) or leave a gap.
  info(
    `reconnect storm: ${storm.clients} clients reconnect with after= mid-turn, ready after, ms p50 / p99 (wall)`,
    `${fmt(storm.catchUp.p50, 0)} / ${fmt(storm.catchUp.p99, 0)}`,
  );
  target(
    `reconnect storm: ${storm.clients} clients, every event exactly once, in order`,
    `${storm.exactlyOnce}/${storm.clients}`,
    `${storm.events} events`,
    "all clients",
    storm.exactlyOnce === storm.clients,
  );

  reportBytes(bytes, { info, target });

  const seconds = (Date.now() - started) / 1000;
  const load1 = loadavg();
  const result = {
    at: new Date(started).toISOString(),
    seconds,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      loadAvgStart: load0,
      loadAvgEnd: load1,
      node: process.version,
    },
    method:
      `medians of ${STORAGE_RUNS} (append contest) or ${RUNS} runs after a warm-up; per-op cost = (call − empty call to the same object) / ops, ` +
      "from Node; cpu = CPU time of the Worker's workerd process, all threads (schedstat); wall = wall clock",
    targets: { met, total: targets },
    workerdRestarts: bench.restarts,
    rows,
    storage: st,
    context: ctx,
    restart: rs,
    fanout: fo,
    storm,
    steps: stepR,
    takeover: takeR,
    coldStart: coldR,
    wholeTurn: turnR,
    bytes,
  };
  // bench/run.mjs runs us from a snapshot; results go to the real repository, formatted the
  // way `npm run check` (Biome) wants them.
  const root = process.env.HW_BENCH_ROOT ?? REPO_ROOT;
  const dir = join(root, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const stamp = new Date(started).toISOString().replace(/[:.]/g, "-");
  const files = [join(dir, `${stamp}.json`), join(dir, "latest.json")];
  for (const file of files) writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  execFileSync(join(root, "node_modules", ".bin", "biome"), ["format", "--write", ...files], {
    cwd: root,
    stdio: "ignore",
  });
  log(`${seconds.toFixed(0)} s; results in bench/results/${stamp}.json and bench/results/latest.json`);
  printTable();
}

/** `HW_BENCH_ONLY=bytes npm run bench`: only the bytes and memory figures (bench/bytes-runner.ts). */
async function bytesOnly(): Promise<void> {
  const persistTo = scratchDir("hw-bench-bytes-");
  const bench = new Bench(await startBenchWorker(persistTo));
  let bytes: BytesResults;
  try {
    bytes = await bytesFigures(bench);
  } finally {
    await bench.srv.stop();
  }
  reportBytes(bytes, { info, target });
  const root = process.env.HW_BENCH_ROOT ?? REPO_ROOT;
  const dir = join(root, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "bytes-latest.json");
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), rows, bytes }, null, 2)}\n`);
  execFileSync(join(root, "node_modules", ".bin", "biome"), ["format", "--write", file], {
    cwd: root,
    stdio: "ignore",
  });
  printTable();
}
