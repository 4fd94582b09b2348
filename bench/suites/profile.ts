/**
 * `HW_BENCH_ONLY=profile npm run bench`: CPU profiles (workerd's inspector) of a step, a durable
 * step and the takeover, for the analysis of a missed target.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Bench, fillShaped, scratchDir } from "../lib/bench";
import { startBenchWorker } from "../lib/procs";
import { summarize, withCpuProfile } from "../lib/profile";
import { freePort } from "../lib/wrangler";
import { OVERHEAD_K } from "./overhead";
import { STEPS_N } from "./steps";
import type { TakeoverAnswer } from "./takeover";

/** With HW_PROFILE_DIR, each profile is also written there (`<name>.cpuprofile`, for DevTools). */
function keep(name: string, profile: unknown): void {
  const dir = process.env.HW_PROFILE_DIR;
  if (dir) writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
}

export async function runProfiles(): Promise<void> {
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
      keep(name, profile);
    }
    // The append contest's two sides: EventStore.append of one event, and its floor (raw INSERT + SHA-256).
    await bench.call("BENCH_LOG", "log-prof", "fill", [1_000]);
    for (const method of ["appendOurs", "appendRawHashed"] as const) {
      const { profile } = await withCpuProfile(inspector, async () => {
        for (let i = 0; i < 10; i++) {
          await bench.call("BENCH_LOG", "log-prof", method, [2_500]);
          await bench.call("BENCH_LOG", "log-prof", "truncate", [1_000, 1_000]);
        }
      });
      console.log(`\n== ${method}: 10 × 2,500 events @1k\n${summarize(profile)}`);
      keep(method, profile);
    }
    // The commit path (the append contest's commit contender, here with the log growing).
    await fillShaped(bench, "commit-1000", 1_000, {});
    {
      const { profile } = await withCpuProfile(inspector, async () => {
        for (let i = 0; i < 10; i++) await bench.call("BENCH_SESSION", "commit-1000", "benchCommit", [2_500]);
      });
      console.log(`\n== the commit path: 10 × 2,500 commits of one event\n${summarize(profile)}`);
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
}
