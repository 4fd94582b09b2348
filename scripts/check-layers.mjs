#!/usr/bin/env node
// The layers of docs/design.md#where-things-live, checked over src/**/*.ts. Every import, value
// and type (`import type`, `export … from`, `import("…")` in a type), must point to its own row
// or a lower one; a feature folder is private to itself (only the two list modules may import it:
// features/index.ts, the feature list, and features/objects.ts, the Durable Object classes features
// bring); only the composition root (src/index.ts, src/worker.ts) imports a list module; and no two
// folders import each other, directly or around a circle. Also: no module imports itself back
// through its values (a file-level cycle over value imports), and no module under src/ passes
// MAX_LINES lines (docs/design.md#where-things-live: a file past that is two concepts). File
// cycles through type imports are listed, not refused (a type is gone at run time). Exits 1 on
// any violation.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { imports } from "./imports.mjs";

const root = resolve(process.argv[2] ?? "src");

/** The rows, highest first (docs/design.md): a folder imports its own row or a lower one. */
const ROWS = {
  root: 8,
  features: 7,
  http: 6,
  session: 5,
  runtime: 4,
  context: 3,
  tools: 3,
  telemetry: 3,
  projections: 2,
  log: 1,
  model: 1,
  client: 1,
  contract: 0,
  storage: 0,
};
const ROOT_FILES = new Set(["index.ts", "worker.ts"]);
/** The most lines a module under src/ may have. */
const MAX_LINES = 300;
/** The list modules: each names every feature folder, and only the composition root imports them. */
const LISTS = new Set(["features/index.ts", "features/objects.ts"]);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/**
 * Where a file sits: its unit (a top-level folder, `features/<x>`, or `features:lists` for the two
 * list modules, which sit above the folders they list), its row, and its path.
 */
function place(file) {
  const rel = relative(root, file).split("\\").join("/");
  const parts = rel.split("/");
  if (parts.length === 1) return { unit: ROOT_FILES.has(rel) ? "root" : rel, row: ROWS.root, rel };
  if (LISTS.has(rel)) return { unit: "features:lists", row: ROWS.features, rel };
  if (parts[0] === "features") {
    const unit = parts.length > 2 ? `features/${parts[1]}` : "features";
    return { unit, row: ROWS.features, rel };
  }
  return { unit: parts[0], row: ROWS[parts[0]] ?? null, rel };
}

const files = walk(root);
const violations = [];
const edges = new Map();
/** The file graph: every import, and the value imports alone. */
const fileGraph = new Map();
const valueGraph = new Map();
for (const file of files) {
  const from = place(file);
  if (from.row === null) violations.push(`${from.rel}: folder "${from.unit}" has no row in the table`);
  const lines = readFileSync(file, "utf8").split("\n").length - 1;
  if (lines > MAX_LINES)
    violations.push(`${from.rel}: ${lines} lines (at most ${MAX_LINES}: a file past that is two concepts)`);
  const found = imports(file);
  fileGraph.set(file, [...new Set(found.map((i) => i.target))]);
  valueGraph.set(file, [...new Set(found.filter((i) => !i.typeOnly).map((i) => i.target))]);
  for (const { target } of found) {
    const to = place(target);
    if (to.unit !== from.unit) {
      if (!edges.has(from.unit)) edges.set(from.unit, new Map());
      if (!edges.get(from.unit).has(to.unit)) edges.get(from.unit).set(to.unit, `${from.rel} -> ${to.rel}`);
    }
    if (to.row !== null && from.row !== null && to.row > from.row)
      violations.push(`${from.rel} -> ${to.rel}: row ${from.row} (${from.unit}) imports row ${to.row} (${to.unit})`);
    if (LISTS.has(to.rel) && from.unit !== "root")
      violations.push(`${from.rel} -> ${to.rel}: only src/index.ts and src/worker.ts import a feature list`);
    if (to.unit.startsWith("features/") && to.unit !== from.unit && !LISTS.has(from.rel))
      violations.push(`${from.rel} -> ${to.rel}: ${to.unit}/ is private to itself`);
  }
}

/** Tarjan's strongly connected components of a graph: each of more than one node (or a self-loop) is a circle. */
function circles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const out = [];
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
      if (component.length > 1 || [...(graph.get(v) ?? [])].includes(v)) out.push(component);
    }
  }
  for (const v of graph.keys()) if (!state.has(v)) strong(v);
  return out;
}

/** One concrete loop through a component of the file graph, for the report. */
function loopIn(graph, component) {
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
  return [...path, start].map((f) => relative(root, f)).join(" -> ");
}

// Circles between folders (value and type imports alike).
const folderGraph = new Map([...edges].map(([a, to]) => [a, [...to.keys()]]));
for (const component of circles(folderGraph)) {
  const members = new Set(component);
  const via = component.flatMap((a) =>
    [...(edges.get(a) ?? [])].filter(([b]) => members.has(b)).map(([, example]) => `    ${example}`),
  );
  violations.push(`folders import each other: ${component.sort().join(", ")}\n${via.join("\n")}`);
}

// Circles between files: through values, refused; through types only, listed.
for (const component of circles(valueGraph))
  violations.push(`value-import cycle (${component.length} files): ${loopIn(valueGraph, component)}`);
const typeCycles = circles(fileGraph).filter(
  (c) => !circles(valueGraph).some((v) => v.includes(c[0]) && v.length === c.length),
);
for (const component of typeCycles)
  console.log(`note: a cycle through type imports (${component.length} files): ${loopIn(fileGraph, component)}`);

if (violations.length === 0) {
  console.log(
    `check-layers: 0 violations in ${files.length} files (layers, private features, folder and value-import cycles, ≤${MAX_LINES} lines)`,
  );
} else {
  for (const v of violations) console.error(v);
  console.error(`check-layers: ${violations.length} violation(s)`);
  process.exit(1);
}
