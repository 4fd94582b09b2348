#!/usr/bin/env node
// Reproduces the two causes of the flaky crash suite (issue 13) on a scratch copy of the
// repository, so that nothing in the checkout changes:
//
//   A. A `wrangler dev` whose config has a `[build]` section re-runs the build once its file
//      watcher is ready, although no file changed (wrangler 4.86 BundlerController: the
//      watcher's "ready" handler calls #runCustomBuild with String(watch_dir), hence the odd
//      "The file ui/src,src/client changed" line), and the new bundle restarts workerd.
//   B. A workerd restart re-binds the very ports it had before. If another process took one
//      of them meanwhile (as a test's "free port" can), the restarted workerd cannot bind: it
//      dies with "Address already in use" or never answers again.
//
// Usage: node scripts/repro-port-race.mjs   (exits 0 when both were reproduced)
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const scratch = mkdtempSync(join(tmpdir(), "hw-repro-"));
cpSync(root, scratch, {
  recursive: true,
  filter: (src) => !/\/(node_modules|\.git|\.wrangler)(\/|$)/.test(src.slice(root.length - 1)),
});
symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"));

/** Ports that processes of the group listen on, by pid (Linux `ss`). */
function listening(pgid) {
  const pids = new Set(
    execFileSync("ps", ["-o", "pid=", "-g", String(pgid)], { encoding: "utf8" })
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const out = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" });
  const ports = [];
  for (const line of out.split("\n")) {
    const m = /127\.0\.0\.1:(\d+).*"workerd",pid=(\d+)/.exec(line);
    if (m && pids.has(m[2])) ports.push({ port: Number(m[1]), pid: Number(m[2]) });
  }
  return ports;
}

function workerdPids(pgid) {
  return execFileSync("ps", ["-o", "pid=,comm=", "-g", String(pgid)], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes("workerd"))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .sort();
}

let log = "";
const child = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    "--port",
    "0",
    "--ip",
    "127.0.0.1",
    "--inspector-port",
    "0",
    "--persist-to",
    join(scratch, ".state"),
    "--show-interactive-dev-session=false",
  ],
  {
    cwd: scratch,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
  },
);
child.stdout.on("data", (d) => (log += d));
child.stderr.on("data", (d) => (log += d));
const exited = new Promise((r) => child.once("exit", r));
let failed = false;
const done = () => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
  rmSync(scratch, { recursive: true, force: true });
};

try {
  while (!/Ready on/.test(log)) await sleep(100);
  const pidsAtReady = workerdPids(child.pid);
  // A: no file is touched; wait for the watcher's own rebuild.
  for (let i = 0; i < 300 && !/changed, restarting build/.test(log); i++) await sleep(100);
  await sleep(3000);
  const rebuilt = /The file (.*) changed, restarting build/.exec(log);
  const pidsAfter = workerdPids(child.pid);
  console.log(`A. spurious rebuild: ${rebuilt ? `yes ("The file ${rebuilt[1]} changed")` : "no"}`);
  console.log(`   workerd pids at Ready ${pidsAtReady.join(",")}, after ${pidsAfter.join(",")}`);
  if (!rebuilt) failed = true;

  // B: hold on to the user workerd's ports the moment they are released, then force one rebuild.
  const ports = listening(child.pid);
  console.log(`B. workerd listens on ${ports.map((p) => p.port).join(", ")}`);
  const held = [];
  const grab = (port) => {
    const s = createServer();
    s.once("error", () => setImmediate(() => !stop && grab(port)));
    s.listen(port, "127.0.0.1", () => held.push(port));
  };
  let stop = false;
  for (const { port } of ports) grab(port);
  appendFileSync(join(scratch, "ui/src/app.ts"), "\n// touched by repro-port-race\n");
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !/Address already in use/.test(log)) await sleep(100);
  stop = true;
  const inUse = /Address already in use \(([^)]+)\)/.exec(log);
  console.log(`   ports taken by another process during the restart: ${held.join(", ") || "none"}`);
  console.log(`   workerd after the restart: ${inUse ? `died, "Address already in use (${inUse[1]})"` : "survived"}`);
  let health = "no answer";
  try {
    const res = await fetch(`${/Ready on (\S+)/.exec(log)[1]}/healthz`, { signal: AbortSignal.timeout(5000) });
    health = `${res.status} ${(await res.text()).slice(0, 80)}`;
  } catch (err) {
    health = String(err);
  }
  console.log(`   /healthz after the restart: ${health}`);
  if (!inUse && health.startsWith("200")) failed = true;
  if (process.env.REPRO_DEBUG) console.log(log.slice(-3000), listening(child.pid), workerdPids(child.pid));
  await Promise.race([exited, sleep(5000)]);
} finally {
  done();
}
process.exit(failed ? 1 : 0);
