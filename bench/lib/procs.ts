/**
 * Processes for the bench: the bench Worker under `wrangler dev` (its own process group,
 * so it can be stopped as a whole), and readers for the CPU time and memory of the workerd
 * process that runs the Worker's code.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { startWrangler } from "./wrangler";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function statFields(pid: string): string[] | null {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, "utf8");
    return [st.slice(st.indexOf("(") + 1, st.lastIndexOf(")")), ...st.slice(st.lastIndexOf(")") + 2).split(" ")];
  } catch {
    return null;
  }
}

/**
 * The workerd process of a `wrangler dev` process group that runs the Worker itself.
 * wrangler starts two: an entry proxy bound to the public port, and the user Worker bound
 * to an ephemeral one; we want the latter.
 */
export function findUserWorkerd(pgid: number, publicPort: number): number | null {
  const found: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    // comm, state, ppid, pgrp
    if (f?.[0] !== "workerd" || Number(f[3]) !== pgid) continue;
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmd.includes(`127.0.0.1:${publicPort}`)) continue;
    found.push(Number(pid));
  }
  return found.sort((a, b) => b - a)[0] ?? null;
}

/** CPU time (ns) the process has run, all threads: `/proc/<pid>/task/<tid>/schedstat`. */
export function cpuNs(pid: number): number {
  let total = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    throw new Error(`workerd ${pid} is gone (restarted or crashed): the bench cannot attribute CPU time`);
  }
  for (const tid of tids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that just ended
    }
  }
  return total;
}

/** VmRSS and VmHWM (peak RSS) in bytes. */
/** A process's memory from /proc (bytes): RSS and its peak, and RSS by kind (anonymous, file-backed, shared). */
export function memory(pid: number): { rss: number; hwm: number; anon: number; file: number; shmem: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile"), shmem: kb("RssShmem") };
}

/** Resets VmHWM to the current RSS (Linux `clear_refs` 5), so the next peak is this phase's own. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * No metrics, and no `Request.cf` download: offline it fails and wrangler then restarts the
 * Worker's workerd, which would skew a restart timing and orphan the pid we measure.
 */
export const QUIET_WRANGLER_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

/** The user workerd once its pid has stayed the same for a second. */
export async function stableWorkerd(pgid: number, port: number, deadline: number): Promise<number> {
  let workerd: number | null = null;
  for (let stable = 0; stable < 10; ) {
    if (Date.now() > deadline) throw new Error("no stable workerd process in its process group");
    const pid = findUserWorkerd(pgid, port);
    stable = pid !== null && pid === workerd ? stable + 1 : 0;
    workerd = pid;
    await sleep(100);
  }
  return workerd!;
}

export type BenchServer = {
  url: string;
  port: number;
  pgid: number;
  /** Updated when wrangler restarts workerd (see `Bench.call` in runner.ts). */
  workerd: number;
  logs(): string;
  /** SIGTERM the group (SIGKILL after 10 s) and wait until every process in it is gone. */
  stop(): Promise<void>;
};

// Node's default for these signals skips the "exit" hooks; the Workers must not outlive us.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => process.exit(130));

/** `wrangler dev -c bench/wrangler.bench.toml` through the e2e harness; resolves when /healthz answers. */
export async function startBenchWorker(persistTo: string, inspectorPort?: number): Promise<BenchServer> {
  const timeoutMs = 120_000;
  const w = await startWrangler({
    persistTo,
    config: "bench/wrangler.bench.toml",
    env: QUIET_WRANGLER_ENV,
    timeoutMs,
    inspectorPort,
  });
  // A workerd pid that stays the same for a second: should wrangler restart workerd after
  // all, the pid we measure would otherwise vanish.
  const workerd = await stableWorkerd(w.pid, w.port, Date.now() + timeoutMs).catch(async (err: Error) => {
    await w.stop();
    throw new Error(`bench worker: ${err.message}\n${w.logs()}`);
  });
  return { url: w.url, port: w.port, pgid: w.pid, workerd, logs: w.logs, stop: w.stop };
}
