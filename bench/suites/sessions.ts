/**
 * Memory per session (issue 26, item 4; `HW_BENCH_ONLY=sessions-rss`): many sessions of several
 * turns each (the demo model) on one `wrangler dev` of the real app, then idle. The RSS of the
 * Worker's workerd (/proc/<pid>/status VmRSS) is read before (the baseline, after a warm-up),
 * with every session just used (live), and after the objects have gone idle and been evicted.
 *
 * Sizes: HW_BENCH_RSS_SESSIONS (default 1,000) × HW_BENCH_RSS_TURNS (default 10), with
 * HW_BENCH_RSS_PARALLEL sessions at a time (default 24). A smaller run is reported per session
 * as measured, with the count beside it: what it says of 1,000 is an extrapolation.
 */
import type { HighwaterClient } from "../../src/client";
import { log, MB, scratchDir, sleep, TOKEN } from "../lib/bench";
import { memory, QUIET_WRANGLER_ENV, stableWorkerd } from "../lib/procs";
import { collectHelperIsolates, type HeapAfterGc, jsHeapAfterGc } from "../lib/profile";
import { clientFor } from "../lib/sockets";
import { fmt, type Report } from "../lib/stats";
import { freePort, startWrangler, testConfigPath } from "../lib/wrangler";

/** How long the objects are left alone before the idle reading, and how often RSS is read meanwhile. */
const IDLE_MS = 60_000;
const IDLE_READ_MS = 5_000;

export type SessionsRss = {
  sessions: number;
  turns: number;
  parallel: number;
  seconds: number;
  baselineMb: number;
  liveMb: number;
  idleMb: number;
  /** RSS every IDLE_READ_MS while idle (MB). */
  idleCurve: number[];
  /** RSS after every 100 sessions used (MB): flat once the allocator's peak is reached if nothing is kept per session. */
  driveCurve: number[];
  perLiveKb: number;
  perIdleKb: number;
  /**
   * RSS (MB) at the baseline and after idle once every isolate a request passes through has had
   * a full GC (`collected`), and the per-session figure between them, the target's.
   */
  baselineGcMb: number;
  idleGcMb: number;
  perIdleGcKb: number;
  collected: string[];
  /**
   * The isolate's JS heap (bytes) in use and reserved, before and after a full GC, at each
   * reading (each taken after that reading's RSS): what after the GC is in use is our objects.
   */
  heap: Record<"baseline" | "live" | "idle", HeapAfterGc>;
  /** RSS by kind at each reading (MB): anonymous memory, and file-backed pages (mapped files the kernel can drop). */
  kindsMb: Record<"baseline" | "live" | "idle", { anon: number; file: number; shmem: number }>;
};

const kindsOf = (m: { anon: number; file: number; shmem: number }) => ({
  anon: m.anon / MB,
  file: m.file / MB,
  shmem: m.shmem / MB,
});

/** Ends when the session's turn is over (polled). */
async function turnOver(client: HighwaterClient, id: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    const s = await client.getSession(id);
    if (!s.openTurn) return;
    await sleep(20);
  }
  throw new Error(`session ${id}: the turn did not end`);
}

/** `n` sessions of `turns` turns each, `parallel` at a time; alternately a chat turn and one with a tool call. */
async function driveSessions(
  client: HighwaterClient,
  n: number,
  turns: number,
  parallel: number,
  onHundred: () => void = () => {},
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const { id } = await client.createSession({ title: `rss ${i}` });
      for (let t = 0; t < turns; t++) {
        await client.sendMessage(id, t % 2 === 0 ? `hello, this is turn ${t}` : "list the files");
        await turnOver(client, id);
      }
      if (++done % 100 === 0) {
        log(`sessions-rss: ${done}/${n} sessions used`);
        onHundred();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, n) }, worker));
}

export async function runSessionsRss(): Promise<SessionsRss> {
  const sessions = Number(process.env.HW_BENCH_RSS_SESSIONS ?? 1_000);
  const turns = Number(process.env.HW_BENCH_RSS_TURNS ?? 10);
  const parallel = Number(process.env.HW_BENCH_RSS_PARALLEL ?? 24);
  const inspector = await freePort();
  const w = await startWrangler({
    persistTo: scratchDir("hw-rss-bench-"),
    config: testConfigPath(),
    vars: { API_TOKENS: TOKEN },
    env: QUIET_WRANGLER_ENV,
    inspectorPort: inspector,
  });
  // A request to the Worker: workerd runs the collection V8 posts only when the isolate is entered.
  const poke = () => fetch(`${w.url}/healthz`).then((r) => r.arrayBuffer());
  const heap = () =>
    jsHeapAfterGc(inspector, poke).catch(() => ({
      usedBefore: Number.NaN,
      totalBefore: Number.NaN,
      used: Number.NaN,
      total: Number.NaN,
    }));
  try {
    const pid = await stableWorkerd(w.pid, w.port, Date.now() + 120_000);
    const client = clientFor(w.url);
    const rss = () => memory(pid).rss / MB;
    // The code paths loaded and their first allocations made, then idle: the baseline is the
    // process with the app warm and no session live.
    await driveSessions(client, parallel, 2, parallel);
    await sleep(IDLE_MS);
    const baselineMb = rss();
    const baselineKinds = kindsOf(memory(pid));
    const baselineHeap = await heap();
    const collected = await collectHelperIsolates(pid, poke);
    await sleep(IDLE_READ_MS);
    const baselineGcMb = rss();
    log(
      `sessions-rss: baseline ${baselineMb.toFixed(1)} MB; ${sessions} sessions × ${turns} turns, ${parallel} at a time`,
    );
    const t0 = Date.now();
    const driveCurve: number[] = [];
    await driveSessions(client, sessions, turns, parallel, () => driveCurve.push(Number(rss().toFixed(1))));
    const seconds = (Date.now() - t0) / 1000;
    const liveMb = rss();
    const liveKinds = kindsOf(memory(pid));
    const liveHeap = await heap();
    log(`sessions-rss: live ${liveMb.toFixed(1)} MB after ${seconds.toFixed(0)} s`);
    const idleCurve: number[] = [];
    for (let waited = 0; waited < IDLE_MS; waited += IDLE_READ_MS) {
      await sleep(IDLE_READ_MS);
      idleCurve.push(Number(rss().toFixed(1)));
    }
    const idleMb = rss();
    const idleKinds = kindsOf(memory(pid));
    const idleHeap = await heap();
    await collectHelperIsolates(pid, poke);
    await sleep(IDLE_READ_MS);
    const idleGcMb = rss();
    return {
      baselineGcMb,
      idleGcMb,
      perIdleGcKb: ((idleGcMb - baselineGcMb) * 1024) / sessions,
      collected,
      kindsMb: { baseline: baselineKinds, live: liveKinds, idle: idleKinds },
      heap: { baseline: baselineHeap, live: liveHeap, idle: idleHeap },
      sessions,
      turns,
      parallel,
      seconds,
      baselineMb,
      liveMb,
      idleMb,
      idleCurve,
      driveCurve,
      perLiveKb: ((liveMb - baselineMb) * 1024) / sessions,
      perIdleKb: ((idleMb - baselineMb) * 1024) / sessions,
    };
  } finally {
    await w.stop();
  }
}

export function reportSessionsRss(r: SessionsRss, { info, target }: Report): void {
  const size = `${r.sessions} sessions × ${r.turns} turns (demo model), ${r.parallel} at a time, ${fmt(r.seconds, 0)} s`;
  info(
    "sessions: workerd RSS baseline / live / after idle, MB",
    `${fmt(r.baselineMb, 1)} / ${fmt(r.liveMb, 1)} / ${fmt(r.idleMb, 1)}`,
    "",
    `${size}; idle curve ${r.idleCurve.join(" ")}`,
  );
  info("sessions: RSS per live session (live − baseline) / sessions", `${fmt(r.perLiveKb, 1)} KiB`, "", size);
  // Readings are 100 sessions apart: the growth from the middle reading to the last, per session.
  const curve = r.driveCurve ?? [];
  const mid = Math.floor(curve.length / 2);
  const slope =
    mid >= 1
      ? `${fmt(((curve.at(-1)! - curve[mid - 1]!) * 1024) / ((curve.length - mid) * 100), 1)} KiB a session from ${mid * 100} to ${curve.length * 100}`
      : "";
  info(
    "sessions: RSS after every 100 sessions used, MB; growth per session over the second half",
    curve.join(" "),
    "",
    slope,
  );
  const k = r.kindsMb;
  info(
    "sessions: RSS by kind, anonymous / file-backed / shared, MB: baseline → live → after idle",
    `${fmt(k.baseline.anon, 1)} / ${fmt(k.baseline.file, 1)} / ${fmt(k.baseline.shmem, 1)} → ${fmt(k.live.anon, 1)} / ${fmt(k.live.file, 1)} / ${fmt(k.live.shmem, 1)} → ${fmt(k.idle.anon, 1)} / ${fmt(k.idle.file, 1)} / ${fmt(k.idle.shmem, 1)}`,
    "",
    "file-backed pages are mapped files (SQLite's), which the kernel reclaims under pressure",
  );
  const h = r.heap;
  const mb = (x: number) => fmt(x / MB, 1);
  const usedTotal = (x: HeapAfterGc) => `${mb(x.usedBefore)}/${mb(x.totalBefore)} → ${mb(x.used)}/${mb(x.total)}`;
  info(
    "sessions: JS heap in use/reserved, before → after a full GC, MB: baseline; live; after idle",
    `${usedTotal(h.baseline)}; ${usedTotal(h.live)}; ${usedTotal(h.idle)}`,
    "",
    `our objects' share of RSS: per session after idle ${fmt((h.idle.used - h.baseline.used) / 1024 / r.sessions, 1)} KiB of heap in use after the GC; the rest is workerd's own memory (its allocator's and V8's reserve)`,
  );
  info(
    "sessions: RSS per session after idle, without a forced GC",
    `${fmt(r.perIdleKb, 1)} KiB`,
    `(${fmt(r.idleMb, 1)} − ${fmt(r.baselineMb, 1)} MB) / ${r.sessions}`,
    "garbage of wrangler's own isolates included (see the target's row)",
  );
  // After idle, and at the baseline, every isolate a request passes through has had a full GC:
  // the Worker's, and wrangler's entry and assets isolates (`collectHelperIsolates`), whose
  // heaps are too small for V8 ever to collect them, while each request leaves garbage there
  // that holds native memory (README: Benchmarks). What is left is what the drive kept.
  // Fails if something per session outlives its object: a module-level cache keyed by session
  // (JS heap after the GC), a buffer or blob kept after the turn, an object that is never let go
  // (its SQLite stays open), or memory workerd grows per object and never returns.
  target(
    "sessions: RSS per session after idle and a full GC of every isolate, vs the baseline's",
    `${fmt(r.perIdleGcKb, 1)} KiB`,
    `(${fmt(r.idleGcMb, 1)} − ${fmt(r.baselineGcMb, 1)} MB) / ${r.sessions}; collected: ${(r.collected ?? []).join(", ") || "none"}`,
    "≤ 512 KiB",
    r.perIdleGcKb <= 512,
  );
}
