/**
 * `npm run bench` (docs/design.md#9-testing): our log against the physical limit (a raw INSERT) and
 * the incumbents (`agents` Sessions, `@cloudflare/ai-chat`, Restate, a bare MCP client), measured
 * in the same run, plus context build, recovery, restart, WebSocket fan-out, and memory and skills
 * (`recall` over 10,000 entries, first-request bytes) on the real app.
 * One file per suite in bench/suites/; this file runs them, prints one table and writes
 * bench/results/<timestamp>.json and bench/results/latest.json.
 *
 * `HW_BENCH_ONLY=<suite>[,<suite>…]` runs some suites (and the suites whose figures their targets
 * compare against) and writes bench/results/<suites>-latest.json; `profile` and `mem` are
 * diagnostics. Sizes for a smoke run: HW_BENCH_SMALL=1 (MCP, chat, edge, storm and forks only).
 *
 * Method. Every measure is the median of RUNS runs (9 for the append contest) after a warm-up,
 * with min and max. The targets on per-operation costs use CPU time of the Worker's workerd: on a
 * small shared machine the wall clock mostly measures the scheduler (both are printed).
 * Latencies (restart, fan-out) are wall clock.
 *
 * Priority. The runner raises its own scheduling priority (nice HW_BENCH_NICE, default -20) before
 * it starts anything, so every process it measures (workerd, Restate, the peers, this client)
 * inherits the same one: a second job on the machine (a test suite) then takes the cores these
 * leave idle rather than a share of every measured stretch, for all contenders alike. Without the
 * right to raise it (not root) the run goes on at the priority it has; the report says which.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Bench, log, RUNS, scratchDir } from "./lib/bench";
import { raisePriority } from "./lib/priority";
import { startBenchWorker } from "./lib/procs";
import { Table } from "./lib/stats";
import { REPO_ROOT } from "./lib/wrangler";
import { type AppendResults, reportAppend, runAppend, STORAGE_RUNS } from "./suites/append";
import { type BytesResults, bytesFigures, reportBytes, tenMiBPeaks } from "./suites/bytes";
import { type ChatResults, reportChat, runChat } from "./suites/chat";
import { bundleSize, type ColdStart, reportColdStart, runColdStart } from "./suites/cold";
import { type CommitResults, reportCommit, runCommit } from "./suites/commit";
import { type ColdMemory, type ContextResults, coldMemory, reportContext, runContext } from "./suites/context";
import { type EdgeResults, reportEdge, runEdge } from "./suites/edge";
import { type FanoutResults, reportFanout, runFanout, runStorm, type StormResults } from "./suites/fanout";
import { type ForkResults, reportFork, runFork } from "./suites/fork";
import { type McpResults, reportMcp, runMcp } from "./suites/mcp";
import { type MemoryResults, reportMemory, runMemory } from "./suites/memory";
import { type OverheadResults, reportOverhead, runOverhead } from "./suites/overhead";
import { runProfiles } from "./suites/profile";
import { type ReadsResults, reportReads, runReads } from "./suites/reads";
import { type RestartResults, reportRestart, runRestart } from "./suites/restart";
import { reportSessionsRss, runSessionsRss, type SessionsRss } from "./suites/sessions";
import { reportSteps, runSteps, type StepResults } from "./suites/steps";
import { reportTakeover, runTakeover, type TakeoverResults } from "./suites/takeover";

/** Suites on the bench Worker (bench/worker/), in the order they run, then those on the real app. */
const WORKER_SUITES = [
  "append",
  "commit",
  "context",
  "steps",
  "overhead",
  "takeover",
  "cold",
  "reads",
  "fork",
  "bytes",
];
const APP_SUITES = ["restart", "fanout", "edge", "mcp", "chat", "memory", "sessions-rss"];
/** A suite whose targets compare with another suite's figures runs that one too: the peer stays in the run. */
const NEEDS: Record<string, string[]> = { commit: ["append"], overhead: ["steps"], cold: ["context", "takeover"] };

type Results = Partial<{
  append: AppendResults;
  commit: CommitResults;
  context: ContextResults;
  steps: StepResults;
  overhead: OverheadResults;
  takeover: TakeoverResults;
  coldStart: ColdStart;
  coldMemory: ColdMemory;
  reads: ReadsResults;
  fork: ForkResults;
  bytes: BytesResults;
  restart: RestartResults;
  fanout: FanoutResults[];
  storm: StormResults;
  edge: EdgeResults;
  mcp: McpResults;
  chat: ChatResults;
  memory: MemoryResults;
  sessionsRss: SessionsRss;
}>;

function selected(): Set<string> {
  const only = process.env.HW_BENCH_ONLY;
  const out = new Set(only ? only.split(",").map((s) => s.trim()) : [...WORKER_SUITES, ...APP_SUITES]);
  for (const s of [...out]) for (const n of NEEDS[s] ?? []) out.add(n);
  for (const s of out)
    if (!WORKER_SUITES.includes(s) && !APP_SUITES.includes(s)) throw new Error(`HW_BENCH_ONLY: no suite "${s}"`);
  return out;
}

/** The whole bench (or the suites HW_BENCH_ONLY names): measures, prints the table, writes the results. */
export async function main(): Promise<void> {
  if (process.env.HW_BENCH_ONLY === "profile") return runProfiles();
  // Where a 10 MiB result's peak comes from: each stage of its path on a fresh workerd.
  if (process.env.HW_BENCH_ONLY === "mem") {
    for (const stop of [1, 2, 3, 9])
      for (const mode of ["ours", "today"] as const)
        console.log(mode, stop, (await tenMiBPeaks(mode, 5, stop)).peaks.map((p) => p.toFixed(1)).join(" "));
    return;
  }
  const want = selected();
  const small = process.env.HW_BENCH_SMALL === "1";
  const started = Date.now();
  const load0 = loadavg();
  const nice = raisePriority(Number(process.env.HW_BENCH_NICE ?? -20));
  const table = new Table();
  const r: Results = {};
  log(
    `${cpus().length} CPUs, load ${load0.map((l) => l.toFixed(1)).join(" ")}; nice ${nice}; suites: ${[...want].join(", ")}`,
  );

  let restarts = 0;
  /** `run` on a bench Worker of its own, stopped (its storage removed) whatever happens. */
  const onWorker = async (name: string, run: (bench: Bench, persistTo: string) => Promise<void>) => {
    const persistTo = scratchDir(`hw-bench-${name}-`);
    const bench = new Bench(await startBenchWorker(persistTo));
    try {
      await run(bench, persistTo);
    } catch (err) {
      log(`failed; the ${name} worker's output ends:\n${bench.srv.logs().slice(-4000)}`);
      throw err;
    } finally {
      restarts += bench.restarts;
      await bench.srv.stop();
      rmSync(persistTo, { recursive: true, force: true });
    }
  };
  // The durable-step contest on a workerd of its own: its peer, Restate, is started fresh for it,
  // and ours meets it fresh too. After the append contest's 100,000 events our step was 10–25%
  // slower in the same run, and the append contest after this one read up to 2× its floor.
  if (want.has("steps"))
    await onWorker("steps", async (bench) => {
      r.steps = await runSteps(bench);
    });
  let cold: ColdMemory | null = null;
  if (WORKER_SUITES.some((s) => s !== "steps" && want.has(s)))
    await onWorker("shared", async (bench, persistTo) => {
      if (want.has("append")) r.append = await runAppend(bench);
      if (want.has("commit")) r.commit = await runCommit(bench);
      if (want.has("context")) r.context = await runContext(bench);
      if (want.has("overhead")) r.overhead = await runOverhead(bench);
      if (want.has("takeover")) r.takeover = await runTakeover(bench);
      if (want.has("cold")) {
        r.coldStart = await runColdStart(bench);
        r.coldMemory = cold = await coldMemory(bench, persistTo);
      }
      if (want.has("reads")) r.reads = await runReads(bench);
      if (want.has("fork")) r.fork = await runFork(bench, small);
      if (want.has("bytes")) r.bytes = await bytesFigures(bench);
    });
  if (r.append) reportAppend(r.append, table);
  if (r.commit && r.append) reportCommit(r.commit, r.append, table);
  if (r.steps) reportSteps(r.steps, table);
  if (r.overhead && r.steps) reportOverhead(r.overhead, r.steps, table);
  if (r.takeover) reportTakeover(r.takeover, cold, table);
  if (r.context) reportContext(r.context, cold, table);
  if (r.reads) reportReads(r.reads, table);
  if (r.fork) reportFork(r.fork, table);
  if (want.has("restart")) r.restart = await runRestart();
  if (want.has("fanout")) {
    r.fanout = await runFanout();
    r.storm = await runStorm(small ? 10 : 50);
  }
  if (want.has("edge")) r.edge = await runEdge(small ? 1 : 5);
  if (want.has("mcp")) r.mcp = await runMcp(small ? 40 : 300, small ? 10 : 60);
  if (want.has("chat")) r.chat = await runChat(small ? 10 : 100);
  if (want.has("memory")) r.memory = await runMemory();
  if (want.has("sessions-rss")) r.sessionsRss = await runSessionsRss();
  if (r.restart) reportRestart(r.restart, table);
  if (r.fanout && r.storm) reportFanout(r.fanout, r.storm, table);
  if (r.edge) reportEdge(r.edge, table);
  if (r.mcp) reportMcp(r.mcp, table);
  if (r.chat) reportChat(r.chat, table);
  if (r.memory) reportMemory(r.memory, table);
  if (r.sessionsRss) reportSessionsRss(r.sessionsRss, table);
  if (r.coldStart) {
    // Last: the dry run writes under the snapshot, which a running `wrangler dev` would reload on.
    Object.assign(r.coldStart, bundleSize());
    reportColdStart(r.coldStart, table);
  }
  if (r.bytes) reportBytes(r.bytes, table);

  const seconds = (Date.now() - started) / 1000;
  const result = {
    at: new Date(started).toISOString(),
    seconds,
    suites: [...want],
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      loadAvgStart: load0,
      loadAvgEnd: loadavg(),
      nice,
      node: process.version,
    },
    method:
      `medians of ${STORAGE_RUNS} (append contest) or ${RUNS} runs after a warm-up; per-op cost = (call − empty call to the same object) / ops, ` +
      "from Node; cpu = CPU time of the Worker's workerd process, all threads (schedstat); wall = wall clock",
    targets: { met: table.met, total: table.targets },
    workerdRestarts: restarts,
    rows: table.rows,
    ...r,
  };
  writeResults(result, started, process.env.HW_BENCH_ONLY ? [...want].join("+") : null);
  log(`${seconds.toFixed(0)} s`);
  table.print(
    `Costs: CPU time of the Worker's workerd per operation (all threads), median of ${STORAGE_RUNS} (append) or ${RUNS} runs, ` +
      "with the wall-clock median beside it; latencies (restart, fan-out, RPC) are wall clock.",
  );
}

/**
 * bench/run.mjs runs us from a snapshot; results go to the real repository, formatted the way
 * `npm run check` (Biome) wants them. A partial run writes only `<suites>-latest.json` (not committed).
 */
function writeResults(result: object, started: number, partial: string | null): void {
  const root = process.env.HW_BENCH_ROOT ?? REPO_ROOT;
  const dir = join(root, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const stamp = new Date(started).toISOString().replace(/[:.]/g, "-");
  const files = partial
    ? [join(dir, `${partial}-latest.json`)]
    : [join(dir, `${stamp}.json`), join(dir, "latest.json")];
  for (const file of files) writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  // Only latest.json is committed (.gitignore); Biome skips the others.
  if (!partial)
    execFileSync(join(root, "node_modules", ".bin", "biome"), ["format", "--write", join(dir, "latest.json")], {
      cwd: root,
      stdio: "ignore",
    });
  log(`results in ${files.map((f) => f.slice(root.length + 1)).join(" and ")}`);
}
