/**
 * The append contest (docs/design.md#3-storage): our `EventStore.append` against the physical limit
 * (a raw INSERT of the same bytes, with and without the chain hash) and the `agents` Sessions peer,
 * interleaved in one workerd at 1k, 10k and 100k events, with our public commit path
 * (`SessionRuntime.commit`) at 1k; plus reads of the tail, where an append's
 * time goes, and one Worker → object RPC. Costs are CPU time of workerd per operation.
 */
import { type Bench, log, measure } from "../lib/bench";
import { type Cost, fmt, type Report, type Stat, span, stat } from "../lib/stats";

export const SIZES = [1_000, 10_000, 100_000] as const;
/**
 * The append contenders are cheap to run and noisy on a shared machine: more runs. At most 11:
 * the agents peer at 100k is left untruncated while the contest grows it by under 10%.
 */
export const STORAGE_RUNS = 11;
/**
 * Operations per timed call: enough for ≥ ~20 ms of work, so the empty call's cost is small beside it.
 * Our commit path runs as many per call as the peer it is compared with, so both spread a call's
 * fixed cost (its write's commit) over as many events.
 */
const BATCH = {
  raw: 5_000,
  rawHashed: 4_000,
  ours: 2_500,
  group8: 2_496,
  agents: 700,
  commit: 700,
  readTail: 100,
} as const;
/** The size at which our public commit path joins the contest (its target compares with the peer there). */
export const COMMIT_SIZE = 1_000;
export const k = (size: number) => `${size / 1000}k`;

export type AppendResults = {
  raw: Record<number, Cost>;
  rawHashed: Record<number, Cost>;
  group8: Record<number, Cost>;
  ours: Record<number, Cost>;
  agents: Record<number, Cost>;
  /** SessionRuntime.commit of one event, µs, at COMMIT_SIZE, interleaved with the others. */
  commit: Record<number, Cost>;
  readTail: Record<number, Cost>;
  profile: Record<string, Cost>;
  rpcOneAppend: Cost;
  sizes: Record<string, unknown>;
};

/**
 * Pre-fills (untimed) what the append contest needs: our log and the raw table, the agents
 * peer, and the 1k-event session our commit path runs in (marked, to rewind to). The other
 * objects are filled after the contest, so that their data (one
 * isolate serves every object of the Worker) does not make the contest's garbage
 * collections dearer.
 */
async function fillContest(b: Bench): Promise<number> {
  let commitHead = 0;
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
    if (size === COMMIT_SIZE) {
      while (!(await b.call<{ done: boolean }>("BENCH_SESSION", "commit-1000", "benchFill", [COMMIT_SIZE])).value.done);
      commitHead = (await b.call<{ head: number }>("BENCH_SESSION", "commit-1000", "benchMark")).value.head;
    }
    log(
      `filled ${size}: log ${info.events} (+raw ${info.raw}), agents ${agents} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  return commitHead;
}

export async function runAppend(b: Bench): Promise<AppendResults> {
  const commitHead = await fillContest(b);
  const out: AppendResults = {
    raw: {},
    rawHashed: {},
    group8: {},
    ours: {},
    agents: {},
    commit: {},
    readTail: {},
    profile: {},
    rpcOneAppend: { cpu: stat([0]), wall: stat([0]), unit: "ms" },
    sizes: {},
  };
  type Contender = "raw" | "rawHashed" | "ours" | "group8" | "agents" | "commit";
  for (const size of SIZES) {
    const contenders: Contender[] = ["raw", "rawHashed", "ours", "group8", "agents"];
    if (size === COMMIT_SIZE) contenders.push("commit");
    const obj = `log-${size}`;
    const peer = `agents-${size}`;
    const peerTruncated = (STORAGE_RUNS + 3) * BATCH.agents >= 0.1 * size;
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
      if (c === "commit") {
        await b.empty("BENCH_SESSION", "commit-1000");
        const r = await b.call("BENCH_SESSION", "commit-1000", "benchCommit", [BATCH.commit]);
        const back = await b.call<{ head: number }>("BENCH_SESSION", "commit-1000", "benchRewind", [false]);
        if (back.value.head !== commitHead)
          throw new Error(`commit rewind: ${back.value.head} events, expected ${commitHead}`);
        return b.perOp("BENCH_SESSION", r, BATCH.commit, 1000);
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
    // Untimed runs first: ten at the first size, where V8 is still compiling each contender's
    // path (on a loaded machine its background compiler lags, and the first timed runs of the
    // contender with the most code read as slow as an unoptimized one: with three, ours read
    // 20.7 µs an event at 1k beside a test suite and 15.7 at 10k), one at the others.
    const warm = size === SIZES[0] ? 10 : 1;
    for (let run = 0; run < STORAGE_RUNS + warm; run++) {
      // Interleaved, in an order that rotates every run, so drift in machine load and whatever
      // one contender leaves behind (garbage, a checkpoint) touch every contender alike.
      // Truncated after each call, so every batch starts at the same log size.
      for (let i = 0; i < contenders.length; i++) {
        const c = contenders[(run + i) % contenders.length]!;
        const s = await timed(c);
        if (run >= warm) samples[c].push(s);
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

  // Where an append's time goes (10k events), for the analysis of a miss.
  const phases = [
    "canonical",
    "hash",
    "hashFixed",
    "insertPlain",
    "insertIndexed",
    "insertIndexedTxn",
    "txnEmpty",
    "inline",
    "append",
  ];
  // Enough operations that the garbage collections each part causes are paid inside its call.
  const K = 20_000;
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

/** The append rows; the targets fail on work beyond INSERT + hash, or on a read that grows with the log. */
export function reportAppend(st: AppendResults, { info, target }: Report): void {
  const [small, , large] = SIZES;
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
      `${fmt(pairedRatio(ours.cpu, rawHashed.cpu))}× raw+hash (per run)`,
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
  // Fails if an append does work beyond the INSERT and the hash of its bytes (another statement
  // per event, a read of the head from SQL, a second serialization, a second transaction).
  // Per run, ours over its floor, the median of those: both run in every run, a few calls apart, so
  // a stretch of load on the machine falls on both sides of one ratio. Ratios of the two medians
  // read 1.24–1.85× at one size across quiet runs of 12-03, and the paired ones 1.27–1.44×.
  const worstRaw = Math.max(...SIZES.map((s) => pairedRatio(st.ours[s]!.cpu, st.rawHashed[s]!.cpu)));
  target(
    "our append vs raw INSERT + SHA-256 in one loop (worst size; median of per-run ratios)",
    `${fmt(worstRaw)}×`,
    `${fmt(worstRaw)}×`,
    "≤ 1.5×",
    worstRaw <= 1.5,
  );
  // Fails if an append reads anything that grows with the log (a COUNT, a scan for the head): a
  // read of 100k rows costs milliseconds. Against the floor's own growth in the same run, since a
  // raw INSERT slows with the table too (its B-tree deepens; 1.22× from 1k to 100k in a run of 12-03).
  const ours = st.ours[large]!.cpu.median / st.ours[small]!.cpu.median;
  const floor = st.rawHashed[large]!.cpu.median / st.rawHashed[small]!.cpu.median;
  target(
    "our append @100k vs @1k, over raw INSERT + SHA-256 @100k vs @1k",
    `${fmt(st.ours[large]!.cpu.median)} / ${fmt(st.ours[small]!.cpu.median)} µs (${fmt(ours)}×), floor ${fmt(floor)}×`,
    `${fmt(ours / floor)}×`,
    "≤ 1.2×",
    ours / floor <= 1.2,
  );
  const pr = st.profile;
  info("  parts @10k: canonical JSON of one event, µs", span(pr.canonical!.cpu));
  info("  parts @10k: chain SHA-256 (chainDigest: JavaScript below 2 KiB), µs", span(pr.hash!.cpu));
  info(
    "  parts @10k: INSERT (3 values bound, 4 literals) plain / +2 indexes / +transactionSync, µs",
    `${fmt(pr.insertPlain!.cpu.median)} / ${fmt(pr.insertIndexed!.cpu.median)} / ${fmt(pr.insertIndexedTxn!.cpu.median)}`,
  );
  info("  parts @10k: chain SHA-256 of nothing (its fixed cost), µs", span(pr.hashFixed!.cpu));
  info("  parts @10k: an empty transactionSync, µs", span(pr.txnEmpty!.cpu));
  info(
    "  parts @10k: event + canonical + chain SHA-256 + INSERT in one loop / our append, µs",
    `${fmt(pr.inline!.cpu.median)} / ${fmt(pr.append!.cpu.median)}`,
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
}

/** The median over runs of `a`'s sample over `b`'s from the same run. */
export function pairedRatio(a: Stat, b: Stat): number {
  const n = Math.min(a.samples.length, b.samples.length);
  return stat(Array.from({ length: n }, (_, i) => a.samples[i]! / b.samples[i]!)).median;
}
