// The modules a TypeScript file imports, as scripts/check-layers.mjs and scripts/message-path.mjs
// walk them: relative specifiers resolved to a .ts file, each marked when only types cross.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export function resolveImport(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")])
    if (candidate.endsWith(".ts") && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/**
 * Every module a file names, each with whether only types cross: imports and re-exports of values
 * and types (`import type`, `export type`, a `{ type a, type b }` list), and `import("…")` in a type.
 */
export function imports(file) {
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const out = [];
  const re =
    /^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[4] || m[5]) {
      out.push({ spec: m[4] ?? m[5], typeOnly: !!m[5] });
      continue;
    }
    const named = m[2].match(/^\{([\s\S]*)\}$/);
    const names = named
      ? named[1]
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean)
      : [];
    out.push({ spec: m[3], typeOnly: !!m[1] || (names.length > 0 && names.every((n) => n.startsWith("type "))) });
  }
  return out.flatMap(({ spec, typeOnly }) => {
    const target = resolveImport(file, spec);
    return target ? [{ target, typeOnly }] : [];
  });
}
