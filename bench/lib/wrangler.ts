/**
 * Real `wrangler dev` processes for e2e tests, started exactly as docs/API.md §1 says the
 * product runs (`npx wrangler dev --port P --ip 127.0.0.1 --inspector-port Q --persist-to DIR
 * --var NAME:VALUE …` at the repository root), each in its own process group so that
 * `kill9()` takes wrangler and workerd down at once, like a crashed machine.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url).href);

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
 * A file with exactly `text`, at a path named by the text's hash, created once and never
 * written again. Every running `wrangler dev` watches its config file, and any write to it, even
 * of the same bytes, reloads that wrangler's workerd: a case starting beside a crash test that
 * sits at a failpoint would restart its object (and recover the call) before the kill.
 */
export function writeOnce(prefix: string, name: string, text: string): string {
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), `${prefix}-${hash}`);
  const file = join(dir, name);
  mkdirSync(dir, { recursive: true });
  try {
    if (readFileSync(file, "utf8") === text) return file;
  } catch {}
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  try {
    // A hard link creates the name only if it is absent: a parallel writer of the same text wins or loses, never rewrites.
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
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

/**
 * The config e2e tests run: the repository's `wrangler.toml` without `[build]`, with absolute
 * paths, created once in a temp directory named by its content (`writeOnce`), so parallel
 * test files share it and none rewrites it under another's running wrangler. Test processes therefore never run the console build and never watch
 * `ui/src` or `src/client`: wrangler 4.86 re-runs a custom build when its watcher becomes
 * ready (whether or not a file changed) and the new bundle reloads workerd, which re-binds
 * the ports it had before (scripts/repro-port-race.mjs shows both). The console is built once
 * by the e2e global setup instead. A plain `wrangler dev` for a user still builds it.
 */
/**
 * Set by the e2e project's global setup (test/e2e/global-setup.ts) to the config of a bundle
 * made once for the run (`prebuildTestConfig`); absent (the bench, one script), each start bundles.
 */
export const PREBUILT_CONFIG_ENV = "HW_E2E_PREBUILT_CONFIG";

/** The config a test `wrangler dev` of the repository's Worker runs: the run's bundle, else the source. */
export function testConfigPath(): string {
  return process.env[PREBUILT_CONFIG_ENV] || sourceConfigPath();
}

/**
 * The repository's Worker bundled once (`wrangler deploy --dry-run`, as `wrangler dev` would
 * bundle it) and a config that runs that bundle as is (`no_bundle`), so a start skips bundling
 * src/ again: about 6 s of CPU for each of the suite's hundred-odd starts. Returns the config's
 * path and the folder to remove when the run ends.
 */
export function prebuildTestConfig(): { config: string; dir: string } {
  return prebuildConfig(sourceConfigPath());
}

/**
 * `source` (a wrangler config whose `main` is `…/worker.ts` and whose paths are absolute; the
 * path itself absolute or relative to the repository root) bundled once into a new temp folder, with a config beside it that runs the bundle as is. The
 * config's entry is a one-line module re-exporting the bundle's exports by name (`entry.js`),
 * the bundle itself attached as a module (an `ESModule` rule): `wrangler dev` reads its entry
 * through esbuild at every start to learn its exports (`guessWorkerFormat`), which over the
 * 4.6 MB bundle was about 1.2 s of CPU per start; over the re-export it is nothing. The Worker
 * that runs is the same code. Falls back to the bundle as entry if its exports cannot be read.
 * The folder is made in `under` (default: the system's temp folder).
 */
export function prebuildConfig(source: string, under: string = tmpdir()): { config: string; dir: string } {
  const dir = mkdtempSync(join(under, "highwater-e2e-bundle-"));
  const dist = join(dir, "dist");
  // wrangler's CLI run directly, as a start runs it (WRANGLER_CLI), not through npx.
  execFileSync(
    process.execPath,
    ["--no-warnings", WRANGLER_CLI, "deploy", "--dry-run", "--outdir", dist, "-c", source],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
        CI: "1",
        NODE_COMPILE_CACHE: COMPILE_CACHE,
      },
    },
  );
  const names = bundleExports(readFileSync(join(dist, "worker.js"), "utf8"));
  let main = join(dist, "worker.js");
  let rule = "";
  if (names?.includes("default")) {
    main = join(dist, "entry.js");
    writeFileSync(main, `export { ${names.join(", ")} } from "./worker.js";\n`);
    rule = `\n[[rules]]\ntype = "ESModule"\nglobs = ["worker.js"]\n`;
  }
  const text = readFileSync(resolve(REPO_ROOT, source), "utf8").replace(
    /^main = .*$/m,
    `main = ${JSON.stringify(main)}\nno_bundle = true`,
  );
  if (!/^no_bundle = true$/m.test(text)) throw new Error("prebuildConfig: no main line to rewrite");
  const config = join(dir, "wrangler.toml");
  writeFileSync(config, `${text.replace(/\n*$/, "\n")}${rule}`);
  return { config, dir };
}

/** The names an esbuild ESM bundle exports (its one closing `export { a as b, … };`), or null. */
export function bundleExports(js: string): string[] | null {
  const tail = js.slice(-20_000);
  const blocks = [...tail.matchAll(/^export \{([^}]*)\};$/gm)];
  const last = blocks.at(-1);
  if (!last) return null;
  const names = last[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => s.split(/\s+as\s+/).at(-1)!);
  return names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)) && names.length > 0 ? names : null;
}

let testConfig: string | null = null;
/** The repository's `wrangler.toml` for tests: no `[build]`, every path absolute (src/worker.ts bundled by each start). */
export function sourceConfigPath(): string {
  if (testConfig) return testConfig;
  const source = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
  const text = withoutBuild(source)
    .replace(/^main = "([^"]+)"$/m, (_m, p: string) => `main = ${JSON.stringify(resolve(REPO_ROOT, p))}`)
    .replace(/^directory = "([^"]+)"$/m, (_m, p: string) => `directory = ${JSON.stringify(resolve(REPO_ROOT, p))}`);
  if (!text.includes(`main = ${JSON.stringify(resolve(REPO_ROOT, "src/worker.ts"))}`) || /^\[build\]/m.test(text))
    throw new Error("sourceConfigPath: wrangler.toml no longer has the shape this harness rewrites");
  // Named by its content (absolute paths included), so checkouts never share one and a
  // second test process never rewrites the file a running wrangler watches.
  const file = writeOnce("highwater-e2e-config", "wrangler.toml", text);
  testConfig = file;
  return file;
}

/** The TOML text without its `[build]` table (up to the next table header). */
export function withoutBuild(toml: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of toml.split("\n")) {
    if (/^\s*\[/.test(line)) skipping = /^\s*\[build\]\s*$/.test(line);
    if (!skipping) out.push(line);
  }
  return out.join("\n");
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
const WRANGLER_CLI = join(REPO_ROOT, "node_modules", "wrangler", "wrangler-dist", "cli.js");
const COMPILE_CACHE = join(tmpdir(), "highwater-node-compile-cache");

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
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      CI: "1",
      // wrangler's CLI is one large bundle: keep its compiled code between the run's starts.
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...options.env,
    },
  });
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

// ---------------------------------------------------------------------------------------------
// Failpoints (docs/design.md §5): a worker started with HW_FAILPOINT=<id> and HW_FAILPOINT_URL=<sink>
// POSTs the id (text body) to the sink at that boundary and then hangs until killed.

export type FailpointSink = {
  url: string;
  /** Ids received so far, in order. */
  received: string[];
  /** Resolves when `id` has been received (also if it already was). */
  waitFor(id: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startFailpointSink(): Promise<FailpointSink> {
  const received: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = Buffer.concat(chunks).toString("utf8").trim();
      if (id) received.push(id);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/failpoint`,
    received,
    waitFor(id, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.includes(id)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `failpoint ${id} not reached within ${timeoutMs} ms (received: ${received.join(", ") || "none"})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
