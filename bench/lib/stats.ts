/**
 * The bench's statistics and its one table: medians with their spread, percentiles, and
 * targets that can fail (each is a check against a peer or a limit measured in the same run).
 */

export type Stat = { median: number; min: number; max: number; n: number; samples: number[] };

export function stat(samples: number[]): Stat {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length, samples };
}

/** The nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** p50, p99 and mean of a list of latencies, rounded to µs. */
export function latencies(ms: number[]): { n: number; p50: number; p99: number; mean: number } {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: ms.length,
    p50: round(percentile(ms, 50)),
    p99: round(percentile(ms, 99)),
    mean: round(ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)),
  };
}

/** Two samples per run: CPU time of workerd and wall clock, both per operation. */
export type Cost = { cpu: Stat; wall: Stat; unit: string };

export const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
export const span = (s: Stat, d = 2) => `${fmt(s.median, d)} [${fmt(s.min, d)} … ${fmt(s.max, d)}]`;
/** `a / b`, the ratio every peer target is stated in. */
export const ratio = (a: number, b: number) => a / b;

export type Row = { measure: string; value: string; wall: string; ratio: string; target: string; met: string };

/** What a suite reports into: informational rows and targets. */
export type Report = {
  info(measure: string, value: string, wall?: string, ratio?: string): void;
  target(measure: string, value: string, ratio: string, goal: string, ok: boolean): void;
};

/** The targets table: every suite adds its rows; `print` ends with "targets met: m/n". */
export class Table implements Report {
  readonly rows: Row[] = [];
  targets = 0;
  met = 0;

  readonly info = (measure: string, value: string, wall = "", ratio = ""): void => {
    this.rows.push({ measure, value, wall, ratio, target: "", met: "" });
  };

  /** A target fails when `ok` is false: the row says NO and the count of met targets stays short. */
  readonly target = (measure: string, value: string, ratio: string, goal: string, ok: boolean): void => {
    this.targets++;
    if (ok) this.met++;
    this.rows.push({ measure, value, wall: "", ratio, target: goal, met: ok ? "yes" : "NO" });
  };

  print(preamble: string): void {
    const head: Row = {
      measure: "measure",
      value: "median [min … max]",
      wall: "wall median",
      ratio: "ratio",
      target: "target",
      met: "met",
    };
    const all = [head, ...this.rows];
    const keys = ["measure", "value", "wall", "ratio", "target", "met"] as const;
    console.log(preamble);
    const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
    const line = (r: Row) =>
      keys
        .map((k, i) => r[k].padEnd(widths[i]!))
        .join("  ")
        .trimEnd();
    console.log(line(head));
    console.log(widths.map((w) => "-".repeat(w)).join("  "));
    for (const r of this.rows) console.log(line(r));
    console.log(`targets met: ${this.met}/${this.targets}`);
  }
}
