/**
 * The durable-execution peer (issue 12, item 1): a local restate-server (the binary the
 * `@restatedev/restate-server` npm package ships) and a Node service on
 * `@restatedev/restate-sdk` (bench/restate-service.mjs) whose handler does `n` durable steps,
 * each a `ctx.run` of a no-op side effect. Both processes are ours, in their own process
 * groups, stopped by process group when the run ends.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shareAutogroup } from "./priority";
import { freePort, REPO_ROOT } from "./wrangler";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const SERVER = join(REPO_ROOT, "node_modules", "@restatedev", "restate-server-linux-x64", "bin", "restate-server");

export type RestatePeer = {
  /** One invocation of `n` steps: its wall time from the ingress client (ms), the handler's gaps (ns), CPU of both processes (ms). */
  invoke(n: number): Promise<{ wallMs: number; gapsNs: number[]; cpuMs: number }>;
  /** The durability settings as configured (from `restate-server --dump-config`). */
  durability: Record<string, string>;
  stop(): Promise<void>;
};

function cpuOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    // utime + stime of the process (all threads), clock ticks (100 Hz): coarse, summed over a whole batch.
    const st = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function stopGroup(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null || !p.pid) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      try {
        process.kill(-p.pid!, "SIGKILL");
      } catch {}
    }, 10_000);
    p.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    try {
      process.kill(-p.pid!, "SIGTERM");
    } catch {
      resolve();
    }
  });
}

export async function startRestate(): Promise<RestatePeer> {
  const base = mkdtempSync(join(tmpdir(), "hw-bench-restate-"));
  const [ingress, admin, node, pg, svc] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    ...process.env,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
    RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pg}`,
    RESTATE_LOG_FORMAT: "compact",
    RESTATE_LOG_FILTER: "warn",
  };
  const dump = execFileSync(SERVER, ["--dump-config"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const durability: Record<string, string> = {};
  let section = "";
  for (const line of dump.split("\n")) {
    const sec = /^\[(.+)\]$/.exec(line);
    if (sec) section = sec[1]!;
    const kv = /^(rocksdb-disable-wal(?:-fsync)?|writer-batch-commit-count|writer-batch-commit-duration) = (.+)$/.exec(
      line,
    );
    if (kv) durability[`${section}.${kv[1]}`] = kv[2]!;
  }
  let logs = "";
  const server = spawn(SERVER, ["--base-dir", base, "--listen-mode", "tcp", "--no-logo", "--node-name", "bench"], {
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  shareAutogroup(server.pid);
  server.stdout!.on("data", (d) => (logs = (logs + d).slice(-4000)));
  server.stderr!.on("data", (d) => (logs = (logs + d).slice(-4000)));
  const service = spawn(process.execPath, [join(REPO_ROOT, "bench", "restate-service.mjs"), String(svc)], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  shareAutogroup(service.pid);
  service.stderr!.on("data", (d) => (logs = (logs + d).slice(-4000)));
  const stop = async () => {
    await Promise.all([stopGroup(service), stopGroup(server)]);
    rmSync(base, { recursive: true, force: true });
  };
  process.on("exit", () => {
    for (const p of [service, server])
      try {
        if (p.pid && p.exitCode === null) process.kill(-p.pid, "SIGKILL");
      } catch {}
  });
  try {
    for (let i = 0; ; i++) {
      if (i > 300) throw new Error(`restate-server did not come up:\n${logs}`);
      try {
        const r = await fetch(`http://127.0.0.1:${admin}/health`);
        if (r.ok) break;
      } catch {}
      await sleep(100);
    }
    for (let i = 0; ; i++) {
      const r = await fetch(`http://127.0.0.1:${admin}/deployments`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri: `http://127.0.0.1:${svc}`, force: true }),
      }).catch((e: Error) => ({ ok: false, status: 0, text: async () => e.message }));
      if (r.ok) break;
      if (i > 100) throw new Error(`restate: registering the service failed: ${r.status} ${await r.text()}\n${logs}`);
      await sleep(200);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const invoke = async (n: number) => {
    for (let attempt = 0; ; attempt++) {
      const c0 = cpuOf(server.pid) + cpuOf(service.pid);
      const t0 = performance.now();
      const r = await fetch(`http://127.0.0.1:${ingress}/bench/steps`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(n),
      });
      const text = await r.text();
      const wallMs = performance.now() - t0;
      const cpuMs = cpuOf(server.pid) + cpuOf(service.pid) - c0;
      // Right after registration the partitions may still be starting up.
      if (!r.ok) {
        if (attempt < 50) {
          await sleep(200);
          continue;
        }
        throw new Error(`restate invoke: ${r.status} ${text}\n${logs}`);
      }
      const body = JSON.parse(text) as { n: number; gaps: number[] };
      return { wallMs, gapsNs: body.gaps, cpuMs };
    }
  };
  return { invoke, durability, stop };
}
