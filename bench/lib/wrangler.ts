/**
 * Real `wrangler dev` processes for e2e tests, started exactly as docs/API.md §1 says the
 * product runs (`npx wrangler dev --port P --ip 127.0.0.1 --inspector-port Q --persist-to DIR
 * --var NAME:VALUE …` at the repository root), each in its own process group so that
 * `kill9()` takes wrangler and workerd down at once, like a crashed machine.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shareAutogroup } from "./priority";
import { COMPILE_CACHE, REPO_ROOT, testConfigPath, WRANGLER_CLI, writeOnce } from "./wrangler-config";

export { type FailpointSink, startFailpointSink } from "./failpoint-sink";
export * from "./wrangler-config";

export type WranglerOptions = {
  /** Directory for Durable Object SQLite and alarms; reuse it to restart "the same machine". */
  persistTo: string;
  vars?: Record<string, string>;
  /**
   * Only when a test really needs a given port: it then waits until that port is free.
   * Otherwise wrangler binds port 0 and the harness reads the port back from "Ready on".
   */
  port?: number;
  inspectorPort?: number;
  /** Default 90 s, covering both "Ready on" and `/healthz` answering 200. */
  timeoutMs?: number;
  /** Extra environment for the wrangler process. */
  env?: Record<string, string>;
  /**
   * Another wrangler config, relative to the repository root (the bench Worker's). Default:
   * the repository's `wrangler.toml` without its `[build]` (see `testConfigPath`).
   */
  config?: string;
};

export type Wrangler = {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  port: number;
  pid: number;
  /** `Date.now()` when wrangler printed "Ready on". */
  readyAt: number;
  options: WranglerOptions;
  /** SIGKILL the whole process group and wait until every process in it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM the group, SIGKILL after 10 s; waits until it is gone. */
  stop(): Promise<void>;
  /** Everything wrangler printed so far (stdout and stderr, colours stripped). */
  logs(): string;
  readonly exited: boolean;
};

const live = new Set<number>();
/**
 * Set by the e2e global setup: a folder holding one empty file per live wrangler (named by its
 * process group), so the run's teardown can end the groups of a test worker that was itself
 * killed (a timed-out file's worker is, and its exit hook never runs).
 */
export const LIVE_DIR_ENV = "HW_E2E_LIVE_DIR";
const liveFile = (pid: number) => (process.env[LIVE_DIR_ENV] ? join(process.env[LIVE_DIR_ENV], String(pid)) : null);

/** Ends every wrangler whose file is in `dir` (see LIVE_DIR_ENV). */
export function killListed(dir: string): void {
  for (const name of readdirSync(dir)) {
    try {
      process.kill(-Number(name), "SIGKILL");
    } catch {}
  }
}
let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test run that dies must not leave wrangler dev processes (and their ports) behind.
  process.on("exit", () => {
    for (const pid of live) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "");

/**
 * A port that was free a moment ago (bind port 0, read it, close). Racy by nature: another
 * process may take it before it is bound again. Never hand it to wrangler; fake servers
 * bind port 0 themselves.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A fresh temporary directory for `persistTo`. */
export function makePersistDir(prefix = "hw-e2e-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Passing an explicit (empty) env file makes wrangler skip the repository's `.dev.vars`,
 * so a developer's local token or model settings never leak into a test. One shared file,
 * created once (see `writeOnce`).
 */
function harnessEnvFile(): string {
  return writeOnce("highwater-e2e-env", ".env", "");
}

/**
 * Whether any process of the group still runs. A killed process stays a zombie until its parent
 * reaps it, and workerd's parent (wrangler) dies with it, so workerd is reaped by whatever
 * adopts orphans, which on some machines takes a second or more: a zombie holds no port, file or
 * CPU, so on Linux the group counts as gone once only zombies are left (read from /proc).
 */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== "linux") return true;
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${name}/stat`, "utf8");
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ")".
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pid && state !== "Z") return true;
    }
    return false;
  } catch {
    return true;
  }
}

/** Resolves once nothing listens on `port` at 127.0.0.1 (a restart that needs its old port). */
async function waitPortFree(port: number, deadline: number): Promise<void> {
  for (;;) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return;
    if (Date.now() > deadline) throw new Error(`port ${port} is still taken`);
    await sleep(100);
  }
}

/** Exceptions that mean "another process has this port", worth a retry rather than a failure. */
const BIND_RACE = /Address already in use|EADDRINUSE/;
const START_ATTEMPTS = 3;

/**
 * Start `wrangler dev` and resolve once `/healthz` answers 200. Every port is chosen by the
 * kernel at bind time (`--port 0 --inspector-port 0`, and workerd's own sockets) and read
 * back from wrangler's output, so no port can be taken between choosing and binding. Should
 * a bind fail all the same (an explicit port), the start is retried.
 */
export async function startWrangler(options: WranglerOptions): Promise<Wrangler> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!(err instanceof BindRaceError) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

class BindRaceError extends Error {}

/**
 * wrangler's CLI run by this Node directly, as its bin script does (`node --no-warnings
 * wrangler-dist/cli.js`), without `npx` and the bin script: two Node processes fewer per start,
 * and the process group is wrangler's own.
 */

async function startOnce(options: WranglerOptions): Promise<Wrangler> {
  installExitHook();
  const timeoutMs = options.timeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  if (options.port !== undefined) await waitPortFree(options.port, deadline);

  const args = [
    "--no-warnings",
    WRANGLER_CLI,
    "dev",
    "-c",
    options.config ?? testConfigPath(),
    "--port",
    String(options.port ?? 0),
    "--ip",
    "127.0.0.1",
    "--inspector-port",
    String(options.inspectorPort ?? 0),
    "--persist-to",
    options.persistTo,
    "--env-file",
    harnessEnvFile(),
    "--show-interactive-dev-session=false",
  ];
  for (const [k, v] of Object.entries(options.vars ?? {})) args.push("--var", `${k}:${v}`);

  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      // Offline the Request.cf download only fails (and logs a stack); don't try.
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // wrangler's local observability (on by default since 4.1xx) records a span for every
      // SQL statement into a trace store of its own on disk: about 10× the cost of the statement
      // itself (README: Benchmarks). Neither a test nor the bench measures it.
      X_LOCAL_OBSERVABILITY: "false",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      CI: "1",
      // wrangler's CLI is one large bundle: keep its compiled code between the run's starts.
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...options.env,
    },
  });
  shareAutogroup(child.pid);
  const pid = child.pid;
  if (pid === undefined) throw new Error("wrangler: spawn failed");
  live.add(pid);
  const listed = liveFile(pid);
  if (listed) writeFileSync(listed, "");

  let output = "";
  let exited = false;
  let exitInfo = "";
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      exitInfo = `exit code ${code} signal ${signal}`;
      resolve();
    });
  });
  let readyAt = 0;
  let port = 0;
  const onData = (d: Buffer) => {
    output += stripAnsi(d.toString("utf8"));
    if (!readyAt) {
      const m = /Ready on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) {
        readyAt = Date.now();
        port = Number(m[1]);
      }
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const logs = () => output;

  const waitGone = async () => {
    await exitPromise;
    for (let i = 0; i < 100 && groupAlive(pid); i++) await sleep(50);
    live.delete(pid);
    if (listed) rmSync(listed, { force: true });
  };
  const kill9 = async () => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
    await waitGone();
  };
  const stop = async () => {
    if (!exited) {
      try {
        process.kill(-pid, "SIGTERM");
      } catch {}
      const t = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {}
      }, 10_000);
      await exitPromise;
      clearTimeout(t);
    }
    // Whatever is left of the group (workerd) goes too.
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
    await waitGone();
  };

  const where = () => (port ? `http://127.0.0.1:${port}` : "(port not yet known)");
  const fail = async (why: string): Promise<never> => {
    await kill9();
    const message = `wrangler dev on ${where()}: ${why}\n--- wrangler output ---\n${output}`;
    throw BIND_RACE.test(output) ? new BindRaceError(message) : new Error(message);
  };

  while (!readyAt) {
    if (exited) await fail(`exited before "Ready on" (${exitInfo})`);
    if (BIND_RACE.test(output)) await fail("a port was taken");
    if (Date.now() > deadline) await fail(`no "Ready on" within ${timeoutMs} ms`);
    await sleep(50);
  }
  const url = `http://127.0.0.1:${port}`;
  let last = "";
  for (;;) {
    if (exited) await fail(`exited before /healthz answered (${exitInfo})`);
    if (BIND_RACE.test(output)) await fail("a port was taken");
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) {
        await res.arrayBuffer();
        break;
      }
      last = `status ${res.status}: ${(await res.text()).slice(0, 300)}`;
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) await fail(`/healthz not 200 within ${timeoutMs} ms (last: ${last})`);
    await sleep(100);
  }

  return {
    url,
    port,
    pid,
    readyAt,
    options,
    kill9,
    stop,
    logs,
    get exited() {
      return exited;
    },
  };
}

/**
 * Kill -9 a running instance and start it again on the same `persistTo`, with changed vars.
 * The restart gets new ports: nothing depends on the old one being free again.
 */
export async function restartWrangler(
  w: Wrangler,
  changes: { vars?: Record<string, string>; dropVars?: string[] } = {},
): Promise<Wrangler> {
  if (!w.exited) await w.kill9();
  const vars = { ...w.options.vars, ...changes.vars };
  for (const k of changes.dropVars ?? []) delete vars[k];
  return startWrangler({ ...w.options, vars, port: undefined, inspectorPort: undefined });
}
