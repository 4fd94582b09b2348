/**
 * The runner's side of bench/worker/bytes.ts: bytes out of SQLite per context build, per read_archive
 * page and per /transcript and /files page; the workerd peak RSS for one 10 MiB tool result;
 * the longest stretch /verify and a WebSocket catch-up hold the object. Each against today's
 * code path (bench/worker/legacy.ts) in the same workerd, as a ratio with a target.
 *
 * Peak memory: the workerd process's VmHWM after `clear_refs` 5, minus its RSS just before the
 * call (Linux), on a freshly started workerd per code path, so pages the other path left
 * resident do not hide this one's growth. It bounds the isolate's peak from above (workerd's
 * own allocations are in it too).
 */
import { rmSync } from "node:fs";
import { type BenchServer, memory, resetPeak, startBenchWorker } from "../lib/procs";
import type { Report } from "../lib/stats";
import { makePersistDir } from "../lib/wrangler";

const MB = 1024 * 1024;
const RESULT_BYTES = 400 * 1024;
export const CONTEXT_RESULTS = [3, 60, 300] as const;
const LOG_EVENTS = 100_000;

type Caller = {
  srv: BenchServer;
  call<T>(ns: "BENCH_BYTES", name: string, method: string, args?: unknown[]): Promise<{ value: T }>;
  callExpectingError(ns: "BENCH_BYTES", name: string, method: string): Promise<void>;
};

export type BytesResults = {
  context: Record<number, { ours: number; today: number; same: boolean | null }>;
  archive: { ours: number; today: number };
  tenMiB: { ours: number[]; today: number[]; clearRefs: boolean };
  verify: { oursMaxGapMs: number; oursTurns: number; oursTotalMs: number; todayMs: number; events: number };
  replay: { oursMaxGapMs: number; oursTurns: number; todayMs: number; oursFrames: number; frames: number };
  pages: {
    oursTranscript: number;
    todayTranscript: number;
    items: number;
    todayItems: number;
    oursFiles: number;
    todayFiles: number;
  };
};

const log = (msg: string) => process.stderr.write(`bench bytes: ${msg}\n`);

/** Peak RSS growth of workerd (MB) for each of `runs` 10 MiB results on a fresh workerd. */
/**
 * `stop` ends the path early, to see where a peak comes from (`HW_BENCH_ONLY=mem`): 1 after the
 * fetch, 2 after the runtime's serialize and measure, 3 after archiving, 9 the whole path.
 */
export async function tenMiBPeaks(
  mode: "ours" | "today",
  runs: number,
  stop = 9,
): Promise<{ peaks: number[]; clearRefs: boolean }> {
  const dir = makePersistDir(`hw-bench-mem-${mode}-`);
  const srv = await startBenchWorker(dir);
  try {
    const call = async (method: string, args: unknown[] = []) => {
      const res = await fetch(`${srv.url}/call`, {
        method: "POST",
        body: JSON.stringify({ ns: "BENCH_BYTES", name: `mem-${mode}`, method, args }),
      });
      const body = (await res.json()) as { ok: boolean; value: unknown; error?: string };
      if (!body.ok) throw new Error(`${method}: ${body.error}`);
      return body.value;
    };
    // Load the script and open the object first: the peak is the result's own.
    await call("archiveBytes");
    const peaks: number[] = [];
    let clearRefs = true;
    for (let i = 0; i < runs; i++) {
      clearRefs &&= resetPeak(srv.workerd);
      const before = memory(srv.workerd);
      await call("tenMiBResult", [mode, stop]);
      peaks.push((memory(srv.workerd).hwm - before.rss) / MB);
    }
    return { peaks, clearRefs };
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function bytesFigures(b: Caller): Promise<BytesResults> {
  const context: BytesResults["context"] = {};
  for (const n of CONTEXT_RESULTS) {
    const name = `context-${n}`;
    await b.call("BENCH_BYTES", name, "contextFill", [n, RESULT_BYTES]);
    const r = await b.call<{ ours: number; today: number; same: boolean | null }>("BENCH_BYTES", name, "contextBytes");
    context[n] = r.value;
    log(`context @${n} results of 400 KiB: ${r.value.ours} bytes read (today ${r.value.today})`);
  }
  const archive = (await b.call<BytesResults["archive"]>("BENCH_BYTES", "archive", "archiveBytes")).value;
  log(`read_archive page: ${archive.ours} bytes (today ${archive.today})`);

  for (let done = 0; done < LOG_EVENTS; )
    done = (await b.call<{ events: number }>("BENCH_BYTES", "log", "logFill", [LOG_EVENTS])).value.events;
  await b.callExpectingError("BENCH_BYTES", "log", "benchAbort");
  const verify = (await b.call<BytesResults["verify"]>("BENCH_BYTES", "log", "verifyStretch")).value;
  log(`verify @${verify.events}: longest stretch ${verify.oursMaxGapMs} ms (today ${verify.todayMs} ms)`);
  const replay = (await b.call<BytesResults["replay"]>("BENCH_BYTES", "log", "replayStretch")).value;
  log(`replay @${replay.frames}: longest stretch ${replay.oursMaxGapMs} ms (today ${replay.todayMs} ms)`);
  const pages = (await b.call<BytesResults["pages"]>("BENCH_BYTES", "log", "pageBytes")).value;
  log(
    `pages: transcript ${pages.oursTranscript} (today ${pages.todayTranscript}), files ${pages.oursFiles} (today ${pages.todayFiles})`,
  );

  const ours = await tenMiBPeaks("ours", 5);
  const today = await tenMiBPeaks("today", 5);
  log(
    `10 MiB result: peak +${ours.peaks.map((p) => p.toFixed(1)).join("/")} MB (today +${today.peaks.map((p) => p.toFixed(1)).join("/")})`,
  );
  return {
    context,
    archive,
    tenMiB: { ours: ours.peaks, today: today.peaks, clearRefs: ours.clearRefs && today.clearRefs },
    verify,
    replay,
    pages,
  };
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const x = (n: number) => (n >= 10 ? n.toFixed(0) : n.toFixed(2));

/** The rows of the bench table for these figures. */
export function reportBytes(r: BytesResults, t: Report) {
  for (const n of CONTEXT_RESULTS) {
    const c = r.context[n]!;
    t.info(
      `context build @${n} offloaded results of 400 KiB: bytes read (model view / today)`,
      `${kib(c.ours)} / ${kib(c.today)}`,
      "",
      `${x(c.today / c.ours)}× fewer`,
    );
  }
  const few = r.context[3]!;
  const many = r.context[300]!;
  t.target(
    "context build @300 offloaded results vs today's read",
    `${kib(many.ours)} vs ${kib(many.today)}`,
    `${(many.ours / many.today).toFixed(4)}×`,
    "≤ 0.01×",
    many.ours / many.today <= 0.01,
  );
  const perFew = few.ours / 3;
  const perMany = many.ours / 300;
  t.target(
    "context bytes per offloaded result @300 vs @3 (no result's body read)",
    `${perMany.toFixed(0)} / ${perFew.toFixed(0)} B`,
    `${x(perMany / perFew)}×`,
    "≤ 1.5×",
    perMany / perFew <= 1.5,
  );
  t.target(
    "context messages from the model view equal today's (where today's fit in memory)",
    Object.entries(r.context)
      .map(([n, c]) => `@${n}: ${c.same === null ? "n/a" : c.same ? "same" : "DIFFER"}`)
      .join(" "),
    "",
    "identical",
    Object.values(r.context).every((c) => c.same !== false),
  );
  t.target(
    "read_archive page (16 KiB) of a 10 MiB archive: bytes read vs today",
    `${kib(r.archive.ours)} vs ${kib(r.archive.today)}`,
    `${(r.archive.ours / r.archive.today).toFixed(4)}×`,
    "≤ 0.01×",
    r.archive.ours / r.archive.today <= 0.01,
  );
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  const [oursFirst, todayFirst] = [r.tenMiB.ours[0]!, r.tenMiB.today[0]!];
  const oursWorst = Math.max(...r.tenMiB.ours);
  t.info(
    "one 10 MiB http_fetch result to the log: workerd peak RSS growth, MB per run on a fresh workerd (ours | today)",
    `${r.tenMiB.ours.map((p) => p.toFixed(1)).join(" ")} | ${r.tenMiB.today.map((p) => p.toFixed(1)).join(" ")}`,
    "",
    r.tenMiB.clearRefs ? "" : "clear_refs unavailable: peaks are since start",
  );
  t.target(
    "one 10 MiB tool result: peak memory, worst of 5 runs / median",
    `+${oursWorst.toFixed(1)} / +${median(r.tenMiB.ours).toFixed(1)} MB`,
    `${(oursWorst / 64).toFixed(2)}× 64 MB`,
    "worst < 64 MB, median < 48 MB",
    oursWorst < 64 && median(r.tenMiB.ours) < 48,
  );
  t.target(
    "one 10 MiB tool result: first run on a fresh workerd vs today's copies",
    `+${oursFirst.toFixed(1)} vs +${todayFirst.toFixed(1)} MB`,
    `${(oursFirst / todayFirst).toFixed(2)}×`,
    "≤ 0.6×",
    oursFirst / todayFirst <= 0.6,
  );
  t.target(
    `/verify @${r.verify.events / 1000}k events: longest stretch holding the object vs today's one pass`,
    `${r.verify.oursMaxGapMs.toFixed(0)} vs ${r.verify.todayMs.toFixed(0)} ms (${r.verify.oursTurns} turns, ${r.verify.oursTotalMs.toFixed(0)} ms total)`,
    `${(r.verify.oursMaxGapMs / r.verify.todayMs).toFixed(2)}×`,
    "≤ 0.1× and ≤ 50 ms",
    r.verify.oursMaxGapMs <= 0.1 * r.verify.todayMs && r.verify.oursMaxGapMs <= 50,
  );
  t.target(
    `WebSocket catch-up from after=0 @${r.replay.frames / 1000}k events: longest stretch vs today's one call`,
    `${r.replay.oursMaxGapMs.toFixed(0)} vs ${r.replay.todayMs.toFixed(0)} ms (${r.replay.oursTurns} turns)`,
    `${(r.replay.oursMaxGapMs / r.replay.todayMs).toFixed(2)}×`,
    "≤ 0.1×, every frame sent",
    r.replay.oursMaxGapMs <= 0.1 * r.replay.todayMs && r.replay.oursFrames === r.replay.frames,
  );
  t.target(
    "/transcript page (200 items) @100k events: bytes read vs today's last 5,000 events",
    `${kib(r.pages.oursTranscript)} vs ${kib(r.pages.todayTranscript)}`,
    `${(r.pages.oursTranscript / r.pages.todayTranscript).toFixed(3)}×`,
    "≤ 0.1×",
    r.pages.oursTranscript <= 0.1 * r.pages.todayTranscript,
  );
  t.target(
    "/files page (1,000) of 20,000 files: bytes read vs today's whole listing",
    `${kib(r.pages.oursFiles)} vs ${kib(r.pages.todayFiles)}`,
    `${(r.pages.oursFiles / r.pages.todayFiles).toFixed(3)}×`,
    "≤ 0.1×",
    r.pages.oursFiles <= 0.1 * r.pages.todayFiles,
  );
}
