import type { Report } from "../lib/stats";
import type { OverheadResults } from "./overhead";
import type { PerStep, RowsPerStep, StepResults } from "./steps";

// ---- what a step costs in dollars -----------------------------------------------------------

/**
 * Cloudflare's published prices (Workers Paid, beyond the included amounts), as of this bench:
 * Durable Objects bill duration (wall clock while active, at 128 MB), requests, rows read and rows
 * written; a Worker bills CPU time. A step inside a turn is no request of its own (the turn's
 * alarm slices are), so the per-step cost is duration + rows; the CPU price is shown beside it
 * for the same work billed as Worker CPU.
 */
export const PRICES = {
  source:
    "https://developers.cloudflare.com/durable-objects/platform/pricing/ ; https://developers.cloudflare.com/workers/platform/pricing/",
  durationPerMillionGbS: 12.5,
  objectMemoryGb: 0.128,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  requestsPerMillion: 0.15,
  workerCpuPerMillionMs: 0.02,
} as const;

/** Dollars per 1,000 steps: duration at the wall time, rows read and written, and (apart) CPU as a Worker bills it. */
export function dollarsPer1000Steps(step: { wallMs: number; cpuMs: number; rowsRead: number; rowsWritten: number }) {
  const duration = (step.wallMs / 1000) * PRICES.objectMemoryGb * (PRICES.durationPerMillionGbS / 1e6);
  const read = step.rowsRead * (PRICES.rowsReadPerMillion / 1e6);
  const written = step.rowsWritten * (PRICES.rowsWrittenPerMillion / 1e6);
  const cpu = step.cpuMs * (PRICES.workerCpuPerMillionMs / 1e6);
  return {
    duration: duration * 1000,
    read: read * 1000,
    written: written * 1000,
    total: (duration + read + written) * 1000,
    cpu: cpu * 1000,
  };
}

/**
 * A rows-written target: the rows a step writes (as Durable Object SQLite bills them, each index
 * entry a row), its dollars per 1,000 steps beside it, and its floor (one row per event it appends).
 */
export function rowsTarget(
  { target }: Pick<Report, "target">,
  measure: string,
  written: number,
  dollars: { total: number; written: number },
  floor: number,
  goal: number,
): void {
  target(
    measure,
    `${written.toFixed(1)} rows`,
    `$${dollars.total.toExponential(2)} per 1,000 steps ($${dollars.written.toExponential(2)} of it rows written); floor ${floor} (${floor} events)`,
    `≤ ${goal} rows`,
    written <= goal,
  );
}

export function costTable(stepR: StepResults, overhead: OverheadResults, { info }: Report): void {
  info(
    "cost: prices used (USD)",
    `duration $${PRICES.durationPerMillionGbS}/M GB-s at ${PRICES.objectMemoryGb} GB; rows read $${PRICES.rowsReadPerMillion}/M; rows written $${PRICES.rowsWrittenPerMillion}/M; requests $${PRICES.requestsPerMillion}/M; Worker CPU $${PRICES.workerCpuPerMillionMs}/M ms`,
    "",
    PRICES.source,
  );
  const line = (label: string, r: PerStep & { rows: RowsPerStep }) => {
    const d = dollarsPer1000Steps({
      wallMs: r.wall.median,
      cpuMs: r.cpu.median,
      rowsRead: r.rows.read,
      rowsWritten: r.rows.written,
    });
    info(
      `cost: $ per 1,000 steps, ${label} (duration + rows read + rows written)`,
      `$${d.total.toExponential(2)}`,
      "",
      `duration $${d.duration.toExponential(2)} + read $${d.read.toExponential(2)} + written $${d.written.toExponential(2)}; as Worker CPU $${d.cpu.toExponential(2)}`,
    );
  };
  line("durable tool step", stepR.ours);
  for (const key of ["1k", "100k", "off300"]) if (overhead[key]) line(`model step overhead @${key}`, overhead[key]!);
}
