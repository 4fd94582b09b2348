/**
 * Bounded reads (docs/design.md#3-storage): what one read costs must follow what it returns, not
 * the log. Rows SQLite read (and the reply's size) for the fork source at `throughSeq` against the
 * head, the open turn's suffix re-read on each alarm, a child's report per delivery, and first
 * pages of runs, triggers and a record's entries, each against the same read on a smaller log or
 * table in the same run.
 */
import { type Bench, fillShaped, log, type RowCount } from "../lib/bench";
import { fmt, type Report } from "../lib/stats";

type ChildRead = { goalEvents: number; attempts: number; rows: RowCount; delivered: boolean };
type PageRead = { rows: RowCount; replyBytes: number; items: number };
type ForkRead = { throughSeq: number; head: number; rows: RowCount; replyBytes: number; archiveBlobs: number };
export type ReadsResults = {
  forkSource: { small: ForkRead; large: ForkRead; head: ForkRead };
  suffix: { suffixEvents: number; first: RowCount; again: RowCount };
  child: { small: ChildRead; large: ChildRead };
  runs: { small: PageRead; large: PageRead; sizes: [number, number] };
  triggers: { small: PageRead; large: PageRead; sizes: [number, number] };
  records: { small: PageRead; large: PageRead; sizes: [number, number] };
  limit: number;
};

const SMALL = { name: "reads-5000", size: 5_000 };
const LARGE = { name: "reads-50000", size: 50_000 };
const LIMIT = 50;
/** Where both sessions are forked: before the checkpoint of either, so both prefixes are alike. */
const FORK_AT = 2_000;

export async function runReads(b: Bench): Promise<ReadsResults> {
  const shape = { open: "long", tail: 200, offloads: 0 };
  for (const s of [SMALL, LARGE]) await fillShaped(b, s.name, s.size, shape);
  const reads = async <T>(name: string, ...args: unknown[]) =>
    (await b.call<T>("BENCH_SESSION", name, "benchReads", args)).value;
  // The first call wakes the object (it catches its tables up to the head): not a page read.
  const page = async (name: string, kind: string) => {
    await reads<PageRead>(name, "page", kind, LIMIT);
    return reads<PageRead>(name, "page", kind, LIMIT);
  };

  // The same prefix (closed turns, before either checkpoint) forked from a short and a long log.
  const forkSmall = await reads<ForkRead>(SMALL.name, "forkSource", FORK_AT);
  const forkLarge = await reads<ForkRead>(LARGE.name, "forkSource", FORK_AT);
  const head = await reads<ForkRead>(LARGE.name, "forkSource", 0);
  // 600 hidden events behind the last model request: ten minutes of a 1 s trigger.
  const suffix = await reads<ReadsResults["suffix"]>(LARGE.name, "suffix", 600);
  const child = {
    small: await reads<ChildRead>("child-500", "child", 500),
    large: await reads<ChildRead>("child-5000", "child", 5_000),
  };
  const runs = { small: await page(SMALL.name, "runs"), large: await page(LARGE.name, "runs") };

  // Triggers and entries: a page of 50 out of 60, then out of 600, on one session.
  const seeded: Record<string, PageRead[]> = { triggers: [], records: [] };
  for (const kind of ["triggers", "records"] as const) {
    let n = await reads<number>(SMALL.name, "seed", kind, 60, 0);
    seeded[kind]!.push(await page(SMALL.name, kind));
    n = await reads<number>(SMALL.name, "seed", kind, 540, n);
    seeded[kind]!.push(await page(SMALL.name, kind));
    log(`reads: ${n} ${kind}, a page of ${LIMIT} reads ${seeded[kind]!.map((p) => p.rows.rowsRead).join(" → ")} rows`);
  }
  return {
    forkSource: { small: forkSmall, large: forkLarge, head },
    suffix,
    child,
    runs: { ...runs, sizes: [SMALL.size, LARGE.size] },
    triggers: { small: seeded.triggers![0]!, large: seeded.triggers![1]!, sizes: [60, 600] },
    records: { small: seeded.records![0]!, large: seeded.records![1]!, sizes: [60, 600] },
    limit: LIMIT,
  };
}

export function reportReads(r: ReadsResults, { info, target }: Report): void {
  const { small, large, head } = r.forkSource;
  info(
    `fork source at throughSeq ${small.throughSeq}: rows read from a log of ${small.head} / ${large.head} events`,
    `${small.rows.rowsRead} / ${large.rows.rowsRead}`,
    "",
    `reply ${fmt(small.replyBytes / 1024, 0)} / ${fmt(large.replyBytes / 1024, 0)} KiB; at the head of ${head.head}: ${head.rows.rowsRead} rows, ${fmt(head.replyBytes / 1024, 0)} KiB, ${head.archiveBlobs} blobs by reference`,
  );
  // Fails if the fork source reads past \`throughSeq\` (to the head).
  const forkRatio = large.rows.rowsRead / Math.max(1, small.rows.rowsRead);
  target(
    `fork source at the same throughSeq, ${large.head} vs ${small.head} events in the log: rows read`,
    `${large.rows.rowsRead} / ${small.rows.rowsRead}`,
    `${fmt(forkRatio)}×`,
    "≤ 1.2× (flat)",
    forkRatio <= 1.2,
  );
  const s = r.suffix;
  info(
    `open turn's suffix (${s.suffixEvents} events since the last model request): rows read first / after one more hidden event`,
    `${s.first.rowsRead} / ${s.again.rowsRead}`,
  );
  // Fails if each alarm (a 1 s trigger during a pending approval) re-reads the whole suffix.
  target(
    "turnSuffix re-read on the next alarm, one new event: rows read",
    `${s.again.rowsRead}`,
    `${s.suffixEvents} events in the suffix`,
    "≤ 10",
    s.again.rowsRead <= 10,
  );
  const c = r.child;
  info(
    `a child's report retried (parent not answering): rows read per delivery, goal turn of ${c.small.goalEvents} / ${c.large.goalEvents} events`,
    `${c.small.rows.rowsRead} / ${c.large.rows.rowsRead}`,
    "",
    `${c.large.attempts} attempts, delivered ${c.large.delivered}`,
  );
  // Fails if each delivery reads the goal turn again (from its start to the head).
  const childGrowth = c.large.rows.rowsRead / Math.max(1, c.small.rows.rowsRead);
  target(
    `childResult per delivery, goal turn of ${c.large.goalEvents} vs ${c.small.goalEvents} events: rows read`,
    `${c.large.rows.rowsRead} / ${c.small.rows.rowsRead}`,
    `${fmt(childGrowth)}×`,
    "≤ 1.2× (flat)",
    childGrowth <= 1.2 && c.large.attempts >= 2,
  );
  for (const [label, p] of [
    ["GET /runs", r.runs],
    ["GET /triggers", r.triggers],
    ["GET /records/:topic (uncovered entries)", r.records],
  ] as const) {
    const unit = label === "GET /runs" ? "events" : "items";
    info(
      `${label}: first page of ${r.limit}, rows read @${p.sizes[0]} / @${p.sizes[1]} ${unit}`,
      `${p.small.rows.rowsRead} / ${p.large.rows.rowsRead}`,
      "",
      `reply ${fmt(p.small.replyBytes / 1024, 1)} / ${fmt(p.large.replyBytes / 1024, 1)} KiB; ${p.large.items} items`,
    );
    // Fails if a page reads the whole table (no LIMIT, a COUNT, a scan) or the log.
    const growth = p.large.rows.rowsRead / Math.max(1, p.small.rows.rowsRead);
    target(
      `${label}: a page @${p.sizes[1]} vs @${p.sizes[0]} ${unit}, rows read`,
      `${p.large.rows.rowsRead} / ${p.small.rows.rowsRead}`,
      `${fmt(growth)}×`,
      "≤ 1.2× (flat)",
      growth <= 1.2 && p.large.items <= r.limit,
    );
  }
}
