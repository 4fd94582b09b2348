#!/usr/bin/env node
// Measures the message path of docs/design.md#one-message-route-to-frame: the modules one
// `POST /v1/sessions/:id/messages` runs through to its WebSocket frame, and every module they
// import, barrels (`index.ts`) pulling in their whole folder as a bundler sees them (value imports only: types are gone at run time; `--types` counts those too). Prints the
// file and folder counts, the files by folder, and each A -> B -> A folder hop (a module of folder
// A imports one of folder B that imports back into A). `--max-files N` exits 1 past N files or on
// any hop. Static, like check-layers.mjs: what a reader must open to follow one message.
import { dirname, join, relative, resolve } from "node:path";
import { imports } from "./imports.mjs";

const args = process.argv.slice(2);
const withTypes = args.includes("--types");
const maxAt = args.indexOf("--max-files");
const maxFiles = maxAt >= 0 ? Number(args[maxAt + 1]) : null;
const root = resolve("src");

/**
 * The modules a message passes through, in order (docs/design.md#one-message-route-to-frame).
 * Two are hubs: the Durable Object class and the runtime wiring reach every other part of a
 * session (the alarm, the loop, reads) by design, so their closure is the whole object; the
 * measure follows the step modules and counts the hubs themselves (`--with-hubs` follows them too).
 */
const PATH = [
  "http/turns.ts", // the route: validates { text, idempotencyKey? }, one RPC
  "session/session-object.ts", // hub: #rpc, the outcome as a Result
  "session/admission.ts", // the owner check
  "runtime/session-runtime.ts", // hub: postMessage, commit
  "runtime/message.ts", // idempotency, the user event
  "runtime/summary-cache.ts", // the summary's fold and cache writes
  "log/store.ts", // appendPrepared
  "session/sockets.ts", // broadcast: the frame to each caught-up socket
];
const HUBS = new Set(["session/session-object.ts", "runtime/session-runtime.ts"]);
const withHubs = args.includes("--with-hubs");

/** The modules a file imports: values only unless `--types` (as in check-layers.mjs). */
const importsOf = (file) => imports(file).flatMap(({ target, typeOnly }) => (withTypes || !typeOnly ? [target] : []));

const rel = (f) => relative(root, f).split("\\").join("/");
const folderOf = (f) => dirname(rel(f));
const graph = new Map();
const todo = PATH.map((p) => join(root, p));
while (todo.length > 0) {
  const f = todo.pop();
  if (graph.has(f)) continue;
  const to = !withHubs && HUBS.has(rel(f)) ? [] : [...new Set(importsOf(f))];
  graph.set(f, to);
  todo.push(...to);
}

const byFolder = new Map();
for (const f of graph.keys()) {
  const d = folderOf(f);
  if (!byFolder.has(d)) byFolder.set(d, []);
  byFolder.get(d).push(rel(f).slice(d === "." ? 0 : d.length + 1));
}
/** A -> B -> A hops, folders told apart by `folder` (a top-level folder, or the full path). */
function hopsBy(folder) {
  const out = [];
  for (const [a, bs] of graph)
    for (const b of bs) {
      if (folder(b) === folder(a)) continue;
      for (const c of graph.get(b) ?? []) if (folder(c) === folder(a)) out.push(`${rel(a)} -> ${rel(b)} -> ${rel(c)}`);
    }
  return out;
}
const hops = hopsBy((f) => rel(f).split("/")[0]);
const subHops = hopsBy(folderOf);

console.log(
  `message path (${withTypes ? "value and type" : "value"} imports${withHubs ? ", hubs followed" : ""}): ${graph.size} files in ${byFolder.size} folders`,
);
for (const [d, fs] of [...byFolder].sort()) console.log(`  ${d}/ (${fs.length}): ${fs.sort().join(" ")}`);
console.log(`A -> B -> A hops between top-level folders: ${hops.length}`);
for (const h of hops) console.log(`  ${h}`);
console.log(`A -> B -> A hops through a sub-folder (tools/ -> tools/mcp/ -> tools/, listed): ${subHops.length}`);
for (const h of subHops) console.log(`  ${h}`);
if (maxFiles !== null && (graph.size > maxFiles || hops.length > 0)) process.exit(1);
