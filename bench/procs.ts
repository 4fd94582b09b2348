/**
 * Processes for the bench: the bench Worker under `wrangler dev` (its own process group,
 * so it can be stopped as a whole), and readers for the CPU time and memory of the workerd
 * process that runs the Worker's code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, REPO_ROOT } from "../test/e2e/harness/wrangler";

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
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
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

const live = new Set<number>();
process.on("exit", () => {
  for (const pgid of live) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
  }
});
// Node's default for these signals skips the "exit" hooks; the Workers must not outlive us.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => process.exit(130));

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `wrangler dev -c bench/wrangler.bench.toml` on fresh ports; resolves when /healthz answers. */
export async function startBenchWorker(persistTo: string): Promise<BenchServer> {
  const port = await freePort();
  let inspectorPort = await freePort();
  while (inspectorPort === port) inspectorPort = await freePort();
  const wrangler = join(REPO_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  const child: ChildProcess = spawn(
    process.execPath,
    [
      wrangler,
      "dev",
      "-c",
      "bench/wrangler.bench.toml",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      persistTo,
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...QUIET_WRANGLER_ENV, NO_COLOR: "1", FORCE_COLOR: "0", CI: "1" },
    },
  );
  const pgid = child.pid!;
  live.add(pgid);
  let output = "";
  let exited = false;
  const onData = (d: Buffer) => {
    output += d.toString("utf8");
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exit = new Promise<void>((r) =>
    child.once("exit", () => {
      exited = true;
      r();
    }),
  );
  const stop = async () => {
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {}
    const t = setTimeout(() => {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {}
    }, 10_000);
    await exit;
    clearTimeout(t);
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
    for (let i = 0; i < 200 && groupAlive(pgid); i++) await sleep(50);
    live.delete(pgid);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  const fail = async (why: string): Promise<never> => {
    await stop();
    throw new Error(`bench worker: ${why}\n${output}`);
  };
  // Wait for "Ready on", /healthz, and a workerd pid that stays the same for a second (should
  // wrangler restart workerd after all, the pid we measure would otherwise vanish).
  while (!/Ready on http/.test(output)) {
    if (exited || Date.now() > deadline) await fail('no "Ready on"');
    await sleep(100);
  }
  for (;;) {
    if (exited || Date.now() > deadline) await fail("/healthz did not answer");
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {}
    await sleep(200);
  }
  const workerd = await stableWorkerd(pgid, port, deadline).catch((err: Error) => fail(err.message));
  return { url, port, pgid, workerd, logs: () => output, stop };
}
