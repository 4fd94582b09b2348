/**
 * The crash table for the issue note: boundary × outcome × restart→continued-request
 * time, with the runs per boundary and their median, printed and written to
 * `test-results/crash-table.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../harness/wrangler";

export type TimingRow = {
  label: string;
  outcome: string;
  run: number;
  passed: boolean;
  /** First model request after the restart − the restarted worker's "Ready" (first `/healthz` 200 of a 20 ms poll). */
  readyToRequestMs: number | null;
  /** The same from when the harness's `startWrangler` resolved. */
  healthyToRequestMs: number | null;
  /** The same from the restart's spawn (includes wrangler's start-up). */
  spawnToRequestMs: number | null;
  /** F8: first model request − the approval. */
  approvalToRequestMs: number | null;
  /** Restarted wrangler's "Ready" − its spawn. */
  restartStartupMs: number;
};

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

/** The metric a row is judged by: time to the continued request, from the approval for F8. */
const metric = (r: TimingRow) => r.approvalToRequestMs ?? r.readyToRequestMs;

export function buildCrashTable(rows: TimingRow[], order: string[], runsPerBoundary: number) {
  const boundaries = order
    .filter((label) => rows.some((r) => r.label === label))
    .map((label) => {
      const mine = rows.filter((r) => r.label === label).sort((a, b) => a.run - b.run);
      const values = mine.flatMap((r) => (metric(r) === null ? [] : [metric(r)!]));
      return {
        boundary: label,
        outcome: mine[0]!.outcome,
        runs: mine.length,
        passed: mine.filter((r) => r.passed).length,
        measuredFrom: mine.some((r) => r.approvalToRequestMs !== null) ? "approval" : "restart ready",
        restartToContinuedRequestMs: values,
        medianMs: median(values),
        spawnToContinuedRequestMs: mine.flatMap((r) => (r.spawnToRequestMs === null ? [] : [r.spawnToRequestMs])),
        startWranglerResolvedToContinuedRequestMs: mine.flatMap((r) =>
          r.healthyToRequestMs === null ? [] : [r.healthyToRequestMs],
        ),
        restartStartupMs: mine.map((r) => r.restartStartupMs),
      };
    });
  // The overall median is over boundaries the alarm alone continues (not F8's human step).
  const alarmOnly = rows.filter((r) => r.approvalToRequestMs === null && r.readyToRequestMs !== null);
  const all = alarmOnly.map((r) => r.readyToRequestMs!);
  const fromSpawn = alarmOnly.map((r) => r.spawnToRequestMs!);
  const startup = rows.map((r) => r.restartStartupMs);
  return {
    generatedAt: new Date().toISOString(),
    runsPerBoundary,
    definition:
      "restartToContinuedRequestMs = arrival of the first model request at the fake model after the restart − the restarted worker's Ready (its first /healthz 200, polled every 20 ms; wrangler holds requests until the worker is loaded); F8: − the approval. No request is sent after the restart except F8's approval. Negative: the alarm fired and the request arrived before wrangler was ready.",
    boundaries,
    overall: {
      samples: all.length,
      medianMs: median(all),
      minMs: all.length ? Math.min(...all) : null,
      maxMs: all.length ? Math.max(...all) : null,
      spawnToRequestMedianMs: median(fromSpawn),
      restartStartupMedianMs: median(startup),
    },
  };
}

export function printAndWriteCrashTable(table: ReturnType<typeof buildCrashTable>): string {
  const head = ["boundary", "outcome", "runs", "ok", "Ready→continued request ms", "median", "spawn→request median"];
  const lines = table.boundaries.map((b) => [
    b.boundary,
    b.outcome,
    String(b.runs),
    String(b.passed),
    b.restartToContinuedRequestMs.length
      ? `${b.restartToContinuedRequestMs.join(", ")}${b.measuredFrom === "approval" ? " (from approval)" : ""}`
      : "— (none expected)",
    b.medianMs === null ? "—" : String(b.medianMs),
    b.measuredFrom === "approval" ? "—" : String(median(b.spawnToContinuedRequestMs) ?? "—"),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  const text = [
    `crash table (${table.runsPerBoundary} run(s) per boundary)`,
    fmt(head),
    widths.map((w) => "-".repeat(w)).join("-|-"),
    ...lines.map(fmt),
    `overall median Ready→continued request: ${table.overall.medianMs ?? "—"} ms over ${table.overall.samples} sample(s) ` +
      `(min ${table.overall.minMs ?? "—"}, max ${table.overall.maxMs ?? "—"}); spawn→request median ${table.overall.spawnToRequestMedianMs ?? "—"} ms; ` +
      `restart spawn→Ready median ${table.overall.restartStartupMedianMs ?? "—"} ms`,
  ].join("\n");
  console.log(text);
  const dir = join(REPO_ROOT, "test-results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "crash-table.json"), `${JSON.stringify(table, null, 2)}\n`);
  return text;
}
