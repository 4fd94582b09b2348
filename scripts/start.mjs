#!/usr/bin/env node
// `npm start` (docs/API.md §1): make sure the git-ignored `.dev.vars` holds a local API token
// (created on first start, reused afterwards, other lines kept), print it and the console
// URL, then run `wrangler dev` on port 8787 in the foreground. Extra arguments go to
// wrangler (`npm start -- --ip 0.0.0.0`). Works offline: without MODEL_BASE_URL the
// built-in demo model answers.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const devVarsPath = join(root, ".dev.vars");

/** Reuse the first token of an existing `API_TOKENS=` line, or append a fresh one. */
function ensureToken() {
  const text = existsSync(devVarsPath) ? readFileSync(devVarsPath, "utf8") : "";
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const at = lines.findIndex((l) => /^\s*(export\s+)?API_TOKENS\s*=/.test(l));
  if (at >= 0) {
    const value = lines[at]
      .replace(/^\s*(export\s+)?API_TOKENS\s*=\s*/, "")
      .trim()
      .replace(/^(["'])(.*)\1$/, "$2");
    const first = value
      .split(",")
      .map((t) => t.trim())
      .find(Boolean);
    if (first) return first;
  }
  const token = `hw_${randomBytes(24).toString("base64url")}`;
  if (at >= 0) lines[at] = `API_TOKENS=${token}`;
  else lines.push(`API_TOKENS=${token}`);
  writeFileSync(devVarsPath, `${lines.join("\n")}\n`, { mode: 0o600 });
  return token;
}

const args = process.argv.slice(2);
const portArg = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
const port = portArg < 0 ? "8787" : args[portArg].includes("=") ? args[portArg].split("=")[1] : args[portArg + 1];
const wranglerArgs = ["wrangler", "dev", ...(portArg < 0 ? ["--port", port] : []), ...args];

const token = ensureToken();
console.log(`highwater: token ${token}`);
console.log(`highwater: console http://localhost:${port}/`);

// This is `npx wrangler dev`, minus npx: `npm exec` does not pass a SIGTERM on to wrangler
// (it exits and leaves wrangler and workerd running), while wrangler's own bin script
// forwards SIGINT and SIGTERM to the CLI, which then shuts workerd down.
let command = "npx";
let commandArgs = wranglerArgs;
try {
  const pkg = createRequire(import.meta.url).resolve("wrangler/package.json");
  command = process.execPath;
  commandArgs = [join(dirname(pkg), "bin", "wrangler.js"), ...wranglerArgs.slice(1)];
} catch {
  // Not installed locally: let npx find it.
}

/** Whether Cloudflare's hosts resolve within a moment (false on a machine with no network). */
async function online() {
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), 1500).unref());
  return Promise.race([
    lookup("workers.cloudflare.com").then(
      () => true,
      () => false,
    ),
    timeout,
  ]);
}

// Offline, wrangler's dev server fails to fetch the `Request.cf` placeholder data and prints
// a stack trace for it on every start; tell it not to try (highwater does not read `cf`).
const offlineEnv =
  process.env.CLOUDFLARE_CF_FETCH_ENABLED === undefined && !(await online())
    ? { CLOUDFLARE_CF_FETCH_ENABLED: "false" }
    : {};
if (offlineEnv.CLOUDFLARE_CF_FETCH_ENABLED) console.log("highwater: offline; the demo model needs no network");

const child = spawn(command, commandArgs, {
  cwd: root,
  stdio: "inherit",
  shell: command === "npx" && process.platform === "win32",
  // wrangler's local observability writes a span for every SQL statement into a trace store of
  // its own, about ten times the statement's cost; highwater has its own traces (README: Send
  // traces to your collector). X_LOCAL_OBSERVABILITY=true turns it back on.
  env: { WRANGLER_SEND_METRICS: "false", X_LOCAL_OBSERVABILITY: "false", ...offlineEnv, ...process.env },
});

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    // wrangler's bin handles SIGINT and SIGTERM only; a hangup means "stop" as well.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
  });
}
child.on("error", (err) => {
  console.error(`highwater: could not start wrangler: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
});
