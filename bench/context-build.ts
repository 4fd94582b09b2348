/**
 * Context build vs history length (issue 4): the next model context of a session with 1k, 10k
 * and 100k events after a compaction, built by the runtime's real builder (GET /context's
 * `buildNextContext`) inside the bench Worker under `wrangler dev`, never under vitest.
 * Each session has a checkpoint 200 events before its head, so a build should read the same
 * suffix whatever the length: the ratio to 1k is the measure (≈ 1 means O(suffix)).
 *
 * Method: as bench/runner.ts. Per size, RUNS timed calls (after a warm-up) that each build the
 * context 100 times, minus an empty call to the same object; CPU time of the workerd process
 * (all threads) and wall clock, both per build; median with min and max.
 */
import { rmSync } from "node:fs";
import { makePersistDir } from "../test/e2e/harness/wrangler";
import { type BenchServer, cpuNs, startBenchWorker } from "./procs";

const SIZES = [1_000, 10_000, 100_000] as const;
const RUNS = 7;
const log = (msg: string) => process.stderr.write(`context-build: ${msg}\n`);

type Answer = {
  inObjectMs: number;
  rows: { statements: number; rowsRead: number; rowsWritten: number };
  messages: number;
  rawFromSeq: number;
  checkpoint: string | null;
  estimatedTokens: number;
};

async function call<T>(srv: BenchServer, name: string, method: string, args: unknown[] = []) {
  const c0 = cpuNs(srv.workerd);
  const t0 = performance.now();
  const res = await fetch(`${srv.url}/call`, {
    method: "POST",
    body: JSON.stringify({ ns: "BENCH_SESSION", name, method, args, repeat: 1 }),
  });
  const body = (await res.json()) as { ok: boolean; value: T; error?: string };
  const wallMs = performance.now() - t0;
  const cpuMs = (cpuNs(srv.workerd) - c0) / 1e6;
  if (!body.ok) throw new Error(`${name}.${method}: ${body.error}`);
  return { value: body.value, wallMs, cpuMs };
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return { median: s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]!, max: s.at(-1)! };
}

async function main() {
  const persistTo = makePersistDir("hw-ctx-bench-");
  const srv = await startBenchWorker(persistTo);
  const results: Record<
    number,
    { cpu: ReturnType<typeof median>; wall: ReturnType<typeof median>; a: Answer; m: number }
  > = {};
  try {
    for (const size of SIZES) {
      const obj = `ctxb-${size}`;
      const t0 = Date.now();
      const filled = await call<{ events: number; checkpointThrough: number }>(srv, obj, "benchFill", [size]);
      log(
        `filled ${filled.value.events} events (checkpoint through ${filled.value.checkpointThrough}) in ${Date.now() - t0} ms`,
      );
      // A fresh instance, as a woken object would be, then one warm-up call.
      await fetch(`${srv.url}/call`, {
        method: "POST",
        body: JSON.stringify({ ns: "BENCH_SESSION", name: obj, method: "benchAbort" }),
      }).then((r) => r.arrayBuffer());
      await call(srv, obj, "benchEmpty");
      let a = (await call<Answer>(srv, obj, "benchContext", [5])).value;
      // The same number of builds per call at every size (≥ ~40 ms of work), so the ratio compares like with like.
      const m = 100;
      const cpu: number[] = [];
      const wall: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const empty = await call(srv, obj, "benchEmpty");
        const r = await call<Answer>(srv, obj, "benchContext", [m]);
        a = r.value;
        if (run === 0) continue;
        cpu.push(Math.max(0, r.cpuMs - empty.cpuMs) / m);
        wall.push(Math.max(0, r.wallMs - empty.wallMs) / m);
      }
      results[size] = { cpu: median(cpu), wall: median(wall), a, m };
      log(
        `@${size}: ${results[size]!.cpu.median.toFixed(3)} ms CPU per build (${m} builds per call), ${a.rows.rowsRead} rows read`,
      );
    }
  } finally {
    await srv.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
  const base = results[SIZES[0]]!;
  console.log(
    "events   ms/build CPU (min–max)   ms/build wall   ratio to 1k (CPU)   rows read   messages   rawFromSeq",
  );
  for (const size of SIZES) {
    const r = results[size]!;
    console.log(
      [
        String(size).padEnd(8),
        `${r.cpu.median.toFixed(3)} (${r.cpu.min.toFixed(3)}–${r.cpu.max.toFixed(3)})`.padEnd(24),
        r.wall.median.toFixed(3).padEnd(15),
        `${(r.cpu.median / base.cpu.median).toFixed(2)}×`.padEnd(19),
        String(r.a.rows.rowsRead).padEnd(11),
        String(r.a.messages).padEnd(10),
        String(r.a.rawFromSeq),
      ].join(" "),
    );
  }
}

await main();
