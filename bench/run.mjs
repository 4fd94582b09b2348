#!/usr/bin/env node
// `npm run bench`: runs bench/runner.ts against a snapshot of the repository.
//
// `wrangler dev` rebuilds and restarts workerd whenever a source file changes, which would
// cut a measurement in half (and mix two versions of the code in one run). So the working
// tree is copied to a temporary directory first (node_modules is linked, not copied) and
// every Worker in the run, the bench Worker and the real app, is started from that copy.
//
// Node 20 cannot run TypeScript: the runner is bundled with esbuild. The bundle sits two
// directories below the snapshot's root on purpose: bench/lib/wrangler.ts finds the root as
// `new URL("../../", import.meta.url)`, and in a bundle `import.meta.url` is the bundle's own
// location. `HW_BENCH_ONLY=mcp,chat npm run bench` runs some suites (see bench/runner.ts).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const snapshot = mkdtempSync(join(tmpdir(), "hw-bench-src-"));
// Also on an interrupted run (the runner exits from its signal handlers).
process.on("exit", () => rmSync(snapshot, { recursive: true, force: true }));
try {
  // Everything but dependencies, VCS and local state (a .dev.vars never leaves the repository).
  const skip = new Set(["node_modules", ".git", ".wrangler", ".tmp", ".dev.vars", join("bench", "results")]);
  cpSync(root, snapshot, {
    recursive: true,
    filter: (from) => !skip.has(relative(root, from)),
  });
  symlinkSync(join(root, "node_modules"), join(snapshot, "node_modules"), "dir");
  const outfile = join(snapshot, ".tmp", "bench", "runner.mjs");
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(snapshot, "bench", "runner.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  process.env.HW_BENCH_ROOT = root;
  const runner = await import(pathToFileURL(outfile).href);
  await runner.main();
} finally {
  rmSync(snapshot, { recursive: true, force: true });
}
