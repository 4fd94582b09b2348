#!/usr/bin/env node
// Rewrites test/durations.json (the suite's start order, test/sequencer.ts) from a vitest JSON
// report: `npx vitest run --reporter=json --outputFile=/tmp/report.json`, then
// `node scripts/test-durations.mjs /tmp/report.json`. Seconds per file, rounded, at least 1.
import { readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";

const [report] = process.argv.slice(2);
if (!report) throw new Error("usage: node scripts/test-durations.mjs <vitest json report>");
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const out = {};
for (const f of [...testResults].sort((a, b) => (a.name < b.name ? -1 : 1)))
  out[relative(resolve("."), f.name).split("\\").join("/")] = Math.max(1, Math.round((f.endTime - f.startTime) / 1000));
writeFileSync("test/durations.json", `${JSON.stringify(out, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(out).length} files`);
