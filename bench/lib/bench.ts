/**
 * The bench Worker's caller (bench/worker/): one timed HTTP call to one of its objects, with the
 * CPU time of the workerd process around it, the empty-call baseline per namespace, and the
 * run loop every in-object measure shares.
 *
 * Costs inside an object are taken from the Node side around whole HTTP calls that each do many
 * operations, minus an empty call to the same object: both the wall clock and the CPU time of
 * the workerd process that runs the Worker (all threads, /proc schedstat, ns).
 */
import { rmSync } from "node:fs";
import { type BenchServer, cpuNs, stableWorkerd } from "./procs";
import { type Cost, stat } from "./stats";
import { makePersistDir } from "./wrangler";

/** Timed runs after the warm-up, for every measure but the append contest. */
export const RUNS = 5;
export const MB = 1024 * 1024;
export const TOKEN = "bench-token";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const began = Date.now();
export const log = (msg: string) =>
  process.stderr.write(`bench [${((Date.now() - began) / 1000).toFixed(0)} s] ${msg}\n`);

/** A --persist-to directory, removed when the run ends, also when it is interrupted. */
export function scratchDir(prefix: string): string {
  const dir = makePersistDir(prefix);
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export type Ns = "BENCH_LOG" | "BENCH_SESSION" | "BENCH_AGENTS" | "BENCH_CHAT" | "BENCH_BYTES";
export type CallResult<T> = { value: T; wallMs: number; cpuMs: number; workerMs: number };

class WorkerdRestarted extends Error {}

export class Bench {
  /** Empty-call costs per object, the baseline subtracted from every timed call. */
  readonly #empties = new Map<string, { cpu: number[]; wall: number[] }>();

  constructor(public srv: BenchServer) {}

  /** workerd restarts seen (and recovered from) during the run. */
  restarts = 0;

  /**
   * One call, timed. Should workerd restart under it (wrangler reloads on a change in a
   * watched file, e.g. node_modules, or the process dies), the call is made again on the
   * new process: a request cut short committed nothing, and fills and truncations are
   * idempotent.
   */
  async call<T>(ns: Ns, name: string, method: string, args: unknown[] = [], repeat = 1): Promise<CallResult<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#callOnce<T>(ns, name, method, args, repeat);
      } catch (err) {
        if (!(err instanceof WorkerdRestarted) || attempt >= 3) throw err;
        this.restarts++;
        log(
          `workerd restarted during ${ns}/${name}.${method} (${err.message}); calling again. wrangler's output ends:\n` +
            this.srv.logs().slice(-1500),
        );
        this.srv.workerd = await stableWorkerd(this.srv.pgid, this.srv.port, Date.now() + 120_000);
      }
    }
  }

  async #callOnce<T>(ns: Ns, name: string, method: string, args: unknown[], repeat: number): Promise<CallResult<T>> {
    const pid = this.srv.workerd;
    const cpu = () => {
      try {
        return cpuNs(pid);
      } catch {
        throw new WorkerdRestarted(`pid ${pid} is gone`);
      }
    };
    const c0 = cpu();
    const t0 = performance.now();
    const res = await fetch(`${this.srv.url}/call`, {
      method: "POST",
      body: JSON.stringify({ ns, name, method, args, repeat }),
    });
    const text = await res.text();
    const wallMs = performance.now() - t0;
    const cpuMs = (cpu() - c0) / 1e6;
    if (res.status === 503 && /restarted/.test(text)) throw new WorkerdRestarted(text.slice(0, 80));
    const body = JSON.parse(text) as { ok: boolean; value: T; error?: string; workerMs: number };
    if (!body.ok) throw new Error(`${ns}/${name}.${method}: ${body.error}`);
    return { value: body.value, wallMs, cpuMs, workerMs: body.workerMs };
  }

  /** For `ctx.abort()`: the call is expected to fail. */
  async callExpectingError(ns: Ns, name: string, method: string): Promise<void> {
    const res = await fetch(`${this.srv.url}/call`, { method: "POST", body: JSON.stringify({ ns, name, method }) });
    await res.arrayBuffer();
  }

  async empty(ns: Ns, name: string): Promise<void> {
    const r = await this.call(ns, name, ns === "BENCH_SESSION" ? "benchEmpty" : "empty");
    const e = this.#empties.get(ns) ?? { cpu: [], wall: [] };
    e.cpu.push(r.cpuMs);
    e.wall.push(r.wallMs);
    this.#empties.set(ns, e);
  }

  baseline(ns: Ns): { cpu: number; wall: number } {
    const e = this.#empties.get(ns);
    if (!e) return { cpu: 0, wall: 0 };
    return { cpu: stat(e.cpu.slice(-30)).median, wall: stat(e.wall.slice(-30)).median };
  }

  /** Per-operation cost of one timed call that did `ops` operations. */
  perOp(ns: Ns, r: CallResult<unknown>, ops: number, scale = 1): { cpu: number; wall: number } {
    const b = this.baseline(ns);
    return { cpu: (Math.max(0, r.cpuMs - b.cpu) * scale) / ops, wall: (Math.max(0, r.wallMs - b.wall) * scale) / ops };
  }
}

/** Runs `once` 1 + RUNS times (the first is a warm-up) and gathers the per-op samples. */
export async function measure(
  unit: string,
  once: (run: number) => Promise<{ cpu: number; wall: number }>,
): Promise<Cost> {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const s = await once(run);
    if (run === 0) continue;
    cpu.push(s.cpu);
    wall.push(s.wall);
  }
  return { cpu: stat(cpu), wall: stat(wall), unit };
}

/** The shapes the session object's bench methods answer with (bench/worker/session.ts). */
export type RowCount = { statements: number; rowsRead: number; rowsWritten: number; bytesRead?: number };

/** Fills a session of the given shape (bench/worker/session.ts `benchFill`), then drops its instance. */
export async function fillShaped(b: Bench, name: string, size: number, shape: Record<string, unknown>) {
  const t0 = Date.now();
  for (;;) {
    const r = await b.call<{ done: boolean; events: number; offloaded?: number }>("BENCH_SESSION", name, "benchFill", [
      size,
      { contextWindow: 1_000_000, ...shape },
    ]);
    if (r.value.done) {
      log(
        `filled ${name}: ${r.value.events} events, ${r.value.offloaded ?? 0} offloaded, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      break;
    }
  }
  // The fill wrote behind the object's runtime: the next call must meet a fresh instance.
  await b.callExpectingError("BENCH_SESSION", name, "benchAbort");
}
