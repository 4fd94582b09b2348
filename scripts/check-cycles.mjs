#!/usr/bin/env node
// Reports value-import cycles among src/**/*.ts: follows every import and re-export that is not
// `import type`/`export type` (nor all-`type` named specifiers), and exits 1 if any cycle exists.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(process.argv[2] ?? "src");

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")])
    if (candidate.endsWith(".ts") && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** The value imports of one file: `import type …` and `{ type a, type b }` lists are not values. */
function valueImports(file) {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const specs = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[5]) {
      specs.push(m[5]);
      continue;
    }
    if (m[2]) continue;
    const clause = m[3];
    const named = clause.match(/^\{([\s\S]*)\}$/);
    if (named) {
      const names = named[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((n) => n.startsWith("type "))) continue;
    }
    specs.push(m[4]);
  }
  return specs.map((s) => resolveImport(file, s)).filter(Boolean);
}

const files = walk(root);
const graph = new Map(files.map((f) => [f, valueImports(f)]));

// Tarjan's strongly connected components: every component of more than one file (or a file
// importing itself) is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function strong(v) {
  const s = { index, low: index, onStack: true };
  index++;
  state.set(v, s);
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    const t = state.get(w);
    if (!t) {
      strong(w);
      s.low = Math.min(s.low, state.get(w).low);
    } else if (t.onStack) s.low = Math.min(s.low, t.index);
  }
  if (s.low === s.index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component);
  }
}
for (const f of files) if (!state.has(f)) strong(f);

/** One concrete loop through a component, for the report. */
function loopIn(component) {
  const members = new Set(component);
  const start = component[0];
  const path = [start];
  const seen = new Set([start]);
  function step(v) {
    for (const w of graph.get(v) ?? []) {
      if (w === start) return true;
      if (members.has(w) && !seen.has(w)) {
        seen.add(w);
        path.push(w);
        if (step(w)) return true;
        path.pop();
      }
    }
    return false;
  }
  step(start);
  return [...path, start].map((f) => relative(process.cwd(), f)).join(" -> ");
}

if (cycles.length === 0) {
  console.log(`check-cycles: no value-import cycles in ${files.length} files`);
} else {
  for (const c of cycles) console.error(`cycle (${c.length} files): ${loopIn(c)}`);
  console.error(`check-cycles: ${cycles.length} cycle(s)`);
  process.exit(1);
}
