/**
 * Cold start (docs/design.md#5-recovery): the Worker bundle as deployed, gzipped, and a cold object's
 * constructor + migrations + first getSession at 1k and 100k events.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type Bench, RUNS, scratchDir } from "../lib/bench";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { fmt, type Report, type Stat, span, stat } from "../lib/stats";
import { REPO_ROOT } from "../lib/wrangler";

export type ColdStart = {
  bundleGzipBytes: number;
  bundleBytes: number;
  first: Record<string, { wall: Stat; cpu: Stat; constructMs: Stat }>;
};

export async function runColdStart(b: Bench): Promise<ColdStart> {
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
export function bundleSize(): { bundleGzipBytes: number; bundleBytes: number } {
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

export function reportColdStart(coldR: ColdStart, { info }: Report): void {
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
}
