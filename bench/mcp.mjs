#!/usr/bin/env node
// `node bench/mcp.mjs`: MCP calls through highwater vs a bare SDK client (bench/mcp.ts).
// Node 20 cannot run TypeScript, so the bench (which reuses the TypeScript e2e harness) is
// bundled with esbuild, three directories below the repository root as bench/run.mjs does
// (the harness finds the root as `new URL("../../../", import.meta.url)`). Do not edit the
// worktree while it runs: `wrangler dev` reloads on changes.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, ".tmp", "bench", "mcp", "mcp.mjs");
mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(root, "bench", "mcp.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
const bench = await import(pathToFileURL(outfile).href);
await bench.main();
process.exit(0);
