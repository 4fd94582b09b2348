#!/usr/bin/env node
// Bundles the browser console (ui/src/app.ts and the typed client in src/client) into
// ui/assets/app.js, which the Worker serves as a static asset. Runs as wrangler's `[build]`
// command, so several `wrangler dev` processes may run it at once: the output is written
// only when it changed, and through a rename, so a server never reads a half-written file.
// `--check` exits 1 when the file on disk is not what the sources build to.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "ui", "assets", "app.js");

const result = await build({
  absWorkingDir: root,
  entryPoints: ["ui/src/app.ts"],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome110", "firefox110", "safari16"],
  minify: true,
  legalComments: "none",
  charset: "utf8",
  banner: { js: "// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit." },
  outfile,
  write: false,
  logLevel: "warning",
});
const text = result.outputFiles[0].text;
const current = existsSync(outfile) ? readFileSync(outfile, "utf8") : null;

if (process.argv.includes("--check")) {
  if (current !== text) {
    console.error("highwater: ui/assets/app.js is stale; run `node scripts/build-ui.mjs`");
    process.exit(1);
  }
} else if (current !== text) {
  const tmp = `${outfile}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, outfile);
  console.log(`highwater: built ui/assets/app.js (${text.length} bytes)`);
}
