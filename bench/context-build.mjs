#!/usr/bin/env node
// `node bench/context-build.mjs`: context build at 1k, 10k and 100k events after compaction,
// under `wrangler dev` (the bench Worker). Bundles bench/context-build.ts with esbuild, like
// bench/run.mjs, three directories below the root so the harness finds REPO_ROOT.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, ".tmp", "bench", "context-build", "context-build.mjs");
mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(root, "bench", "context-build.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
await import(pathToFileURL(outfile).href);
