/**
 * A fork of a long session (docs/API.md#fork): 100k events with 300 offloaded results since the
 * checkpoint. The source is read in the parent, the fork written in a new object, which copies
 * the archived results from the parent a page per reply: time, bytes, peak workerd memory.
 */
import { type Bench, fillShaped, log, MB, type RowCount } from "../lib/bench";
import { memory, resetPeak } from "../lib/procs";
import { fmt, type Report, type Stat, span, stat } from "../lib/stats";

type ForkAnswer = {
  ms: number;
  sourceMs: number;
  sourceRows: RowCount;
  sourceBytes: number;
  archiveBlobs: number;
  archiveBytes: number;
  forkEvents: number;
};
export type ForkResults = {
  events: number;
  offloads: number;
  ms: Stat;
  wallMs: Stat;
  peakMB: Stat;
  last: ForkAnswer;
};

const RUNS = 3;

export async function runFork(b: Bench, small = false): Promise<ForkResults> {
  const events = small ? 10_000 : 100_000;
  const name = `fork-${events}`;
  await fillShaped(b, name, events, { open: "none", tail: 2_400, offloads: 300 });
  const ms: number[] = [];
  const wall: number[] = [];
  const peaks: number[] = [];
  let last: ForkAnswer | null = null;
  for (let run = 0; run <= RUNS; run++) {
    await b.callExpectingError("BENCH_SESSION", name, "benchAbort");
    await b.call("BENCH_LOG", "warm", "empty");
    const pid = b.srv.workerd;
    const cleared = resetPeak(pid);
    const before = memory(pid);
    const r = await b.call<ForkAnswer>("BENCH_SESSION", name, "benchReads", ["fork", `${name}-child-${run}`]);
    const peak = cleared ? (memory(pid).hwm - before.rss) / MB : Number.NaN;
    last = r.value;
    if (run === 0) continue;
    ms.push(r.value.ms);
    wall.push(r.wallMs);
    peaks.push(peak);
  }
  log(
    `fork @${events}: ${stat(wall).median.toFixed(0)} ms, ${last!.archiveBlobs} blobs, ${(last!.archiveBytes / MB).toFixed(1)} MB copied, peak +${stat(peaks).max.toFixed(1)} MB`,
  );
  return { events, offloads: 300, ms: stat(ms), wallMs: stat(wall), peakMB: stat(peaks), last: last! };
}

export function reportFork(r: ForkResults, { info, target }: Report): void {
  const f = r.last;
  info(
    `fork of a ${r.events / 1000}k-event session with ${r.offloads} offloads: ms (fresh parent instance, wall from Node)`,
    span(r.wallMs, 0),
    "",
    `in-object ${fmt(r.ms.median, 0)} ms (source ${fmt(f.sourceMs, 0)} ms, ${f.sourceRows.rowsRead} rows); ${f.forkEvents} events written`,
  );
  info(
    "  fork: bytes copied (archived results by page / the source reply), peak workerd RSS growth (worst run)",
    `${fmt(f.archiveBytes / MB, 1)} MB / ${fmt(f.sourceBytes / 1024, 0)} KiB`,
    "",
    `${f.archiveBlobs} blobs; peak +${fmt(r.peakMB.max, 1)} MB`,
  );
  // Fails if the source carries the archived blobs (or the whole log) in its one reply.
  target(
    "fork source: one RPC reply, blobs by reference",
    `${fmt(f.sourceBytes / 1024, 0)} KiB`,
    `${fmt(f.archiveBytes / MB, 1)} MB archived`,
    "≤ 1 MiB",
    f.sourceBytes <= MB,
  );
}
