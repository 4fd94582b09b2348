/**
 * The commit path against its peers (docs/design.md#3-storage): `SessionRuntime.commit` per event
 * (append + summary + meta) against `agents` Sessions.appendMessage, both measured in the append
 * contest of the same run (interleaved, rewound after each call), and here with the log growing;
 * and a whole turn of ours against `@cloudflare/ai-chat`'s persistMessages of the same turn at
 * 100, 1,000 and 5,000 messages.
 */
import { type Bench, log, measure, RUNS } from "../lib/bench";
import { type Cost, fmt, type Report, span } from "../lib/stats";
import { type AppendResults, COMMIT_SIZE, k } from "./append";

const CHAT_SIZES = [100, 1_000, 5_000] as const;
const CHAT_BATCH: Record<(typeof CHAT_SIZES)[number], number> = { 100: 50, 1000: 5, 5000: 1 };
const COMMITS = 500;
const TURNS = 40;

export type CommitResults = {
  /** SessionRuntime.commit of one event, µs (the log grows from 1k over the runs). */
  commit: Cost;
  /** A whole turn of ours (8 commits), ms. */
  turn: Cost;
  chat: Record<number, Cost>;
};

export async function runCommit(b: Bench): Promise<CommitResults> {
  for (;;) {
    const r = await b.call<{ done: boolean }>("BENCH_SESSION", "commit-1000", "benchFill", [1_000]);
    if (r.value.done) break;
  }
  const commit = await measure("µs", async () => {
    await b.empty("BENCH_SESSION", "commit-1000");
    const r = await b.call("BENCH_SESSION", "commit-1000", "benchCommit", [COMMITS]);
    return b.perOp("BENCH_SESSION", r, COMMITS, 1000);
  });
  const turn = await measure("ms", async () => {
    await b.empty("BENCH_SESSION", "commit-1000");
    const r = await b.call("BENCH_SESSION", "commit-1000", "benchTurnCommits", [TURNS]);
    return b.perOp("BENCH_SESSION", r, TURNS);
  });
  const chat: Record<number, Cost> = {};
  for (const size of CHAT_SIZES) await b.call("BENCH_CHAT", `chat-${size}`, "fill", [size]);
  for (const size of CHAT_SIZES) {
    const obj = `chat-${size}`;
    const k = CHAT_BATCH[size];
    chat[size] = await measure("ms", async () => {
      await b.empty("BENCH_CHAT", obj);
      const r = await b.call<{ count: number }>("BENCH_CHAT", obj, "persistOne", [k]);
      const back = await b.call<number>("BENCH_CHAT", obj, "truncate", [size]);
      if (back.value !== size) throw new Error(`chat truncate: ${back.value} messages, expected ${size}`);
      return b.perOp("BENCH_CHAT", r, k);
    });
    log(`ai-chat persistMessages @${size}: ${chat[size]!.cpu.median.toFixed(2)} ms (CPU)`);
  }
  return { commit, turn, chat };
}

export function reportCommit(r: CommitResults, st: AppendResults, { info, target }: Report): void {
  const inContest = st.commit[COMMIT_SIZE]!;
  info(
    `our public commit path (SessionRuntime.commit: append + summary + meta), µs/event @${k(COMMIT_SIZE)}, in the append contest`,
    span(inContest.cpu),
    fmt(inContest.wall.median),
  );
  info(
    `our public commit path, the log growing (no rewind), µs/event @1k→${(1_000 + (RUNS + 1) * COMMITS) / 1000}k`,
    span(r.commit.cpu),
    fmt(r.commit.wall.median),
  );
  // What a step really pays per event against the peer's public call, interleaved with it in the
  // append contest (same batch size, both rewound after each call). Fails if the summary fold,
  // its meta write or the change check grow (e.g. re-serializing the whole summary per event).
  const commitPeer = st.agents[COMMIT_SIZE]!.cpu.median / inContest.cpu.median;
  target(
    `our public commit path vs agents appendMessage @${k(COMMIT_SIZE)}`,
    `${fmt(commitPeer)}× faster`,
    `${fmt(commitPeer)}×`,
    "≥ 2× faster",
    commitPeer >= 2,
  );
  info(
    "a whole turn of ours (8 commits through SessionRuntime.commit), ms/turn @1k",
    span(r.turn.cpu, 3),
    fmt(r.turn.wall.median, 3),
  );
  for (const size of CHAT_SIZES) {
    const c = r.chat[size]!;
    info(
      `ai-chat persistMessages of the same turn (transcript + 1 message), ms/call @${size}`,
      span(c.cpu),
      fmt(c.wall.median),
      `${fmt(c.cpu.median / r.turn.cpu.median, 1)}× our whole turn`,
    );
  }
}
