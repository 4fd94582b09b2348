/**
 * The config a test `wrangler dev` runs (bench/lib/wrangler.ts starts it): the repository's
 * `wrangler.toml` made fit for tests, or a bundle built once for the run, in files written once.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url).href);
/** wrangler's CLI, run by Node directly (not through npx), with a compile cache shared by every start. */
export const WRANGLER_CLI = join(REPO_ROOT, "node_modules", "wrangler", "wrangler-dist", "cli.js");
export const COMPILE_CACHE = join(tmpdir(), "highwater-node-compile-cache");

/**
 * A file with exactly `text`, at a path named by the text's hash, created once and never
 * written again. Every running `wrangler dev` watches its config file, and any write to it, even
 * of the same bytes, reloads that wrangler's workerd: a case starting beside a crash test that
 * sits at a failpoint would restart its object (and recover the call) before the kill.
 */
export function writeOnce(prefix: string, name: string, text: string): string {
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), `${prefix}-${hash}`);
  const file = join(dir, name);
  mkdirSync(dir, { recursive: true });
  try {
    if (readFileSync(file, "utf8") === text) return file;
  } catch {}
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  try {
    // A hard link creates the name only if it is absent: a parallel writer of the same text wins or loses, never rewrites.
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
}

/**
 * The config e2e tests run: the repository's `wrangler.toml` without `[build]`, with absolute
 * paths, created once in a temp directory named by its content (`writeOnce`), so parallel
 * test files share it and none rewrites it under another's running wrangler. Test processes therefore never run the console build and never watch
 * `ui/src` or `src/client`: wrangler 4.86 re-runs a custom build when its watcher becomes
 * ready (whether or not a file changed) and the new bundle reloads workerd, which re-binds
 * the ports it had before (scripts/repro-port-race.mjs shows both). The console is built once
 * by the e2e global setup instead. A plain `wrangler dev` for a user still builds it.
 */
/**
 * Set by the e2e project's global setup (test/e2e/global-setup.ts) to the config of a bundle
 * made once for the run (`prebuildTestConfig`); absent (the bench, one script), each start bundles.
 */
export const PREBUILT_CONFIG_ENV = "HW_E2E_PREBUILT_CONFIG";

/** The config a test `wrangler dev` of the repository's Worker runs: the run's bundle, else the source. */
export function testConfigPath(): string {
  return process.env[PREBUILT_CONFIG_ENV] || sourceConfigPath();
}

/**
 * The repository's Worker bundled once (`wrangler deploy --dry-run`, as `wrangler dev` would
 * bundle it) and a config that runs that bundle as is (`no_bundle`), so a start skips bundling
 * src/ again: about 6 s of CPU for each of the suite's hundred-odd starts. Returns the config's
 * path and the folder to remove when the run ends.
 */
export function prebuildTestConfig(): { config: string; dir: string } {
  return prebuildConfig(sourceConfigPath());
}

/**
 * `source` (a wrangler config whose `main` is `…/worker.ts` and whose paths are absolute; the
 * path itself absolute or relative to the repository root) bundled once into a new temp folder, with a config beside it that runs the bundle as is. The
 * config's entry is a one-line module re-exporting the bundle's exports by name (`entry.js`),
 * the bundle itself attached as a module (an `ESModule` rule): `wrangler dev` reads its entry
 * through esbuild at every start to learn its exports (`guessWorkerFormat`), which over the
 * 4.6 MB bundle was about 1.2 s of CPU per start; over the re-export it is nothing. The Worker
 * that runs is the same code. Falls back to the bundle as entry if its exports cannot be read.
 * The folder is made in `under` (default: the system's temp folder).
 */
export function prebuildConfig(source: string, under: string = tmpdir()): { config: string; dir: string } {
  const dir = mkdtempSync(join(under, "highwater-e2e-bundle-"));
  const dist = join(dir, "dist");
  // wrangler's CLI run directly, as a start runs it (WRANGLER_CLI), not through npx.
  execFileSync(
    process.execPath,
    ["--no-warnings", WRANGLER_CLI, "deploy", "--dry-run", "--outdir", dist, "-c", source],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
        CI: "1",
        NODE_COMPILE_CACHE: COMPILE_CACHE,
      },
    },
  );
  const names = bundleExports(readFileSync(join(dist, "worker.js"), "utf8"));
  let main = join(dist, "worker.js");
  let rule = "";
  if (names?.includes("default")) {
    main = join(dist, "entry.js");
    writeFileSync(main, `export { ${names.join(", ")} } from "./worker.js";\n`);
    rule = `\n[[rules]]\ntype = "ESModule"\nglobs = ["worker.js"]\n`;
  }
  const text = readFileSync(resolve(REPO_ROOT, source), "utf8").replace(
    /^main = .*$/m,
    `main = ${JSON.stringify(main)}\nno_bundle = true`,
  );
  if (!/^no_bundle = true$/m.test(text)) throw new Error("prebuildConfig: no main line to rewrite");
  const config = join(dir, "wrangler.toml");
  writeFileSync(config, `${text.replace(/\n*$/, "\n")}${rule}`);
  return { config, dir };
}

/** The names an esbuild ESM bundle exports (its one closing `export { a as b, … };`), or null. */
export function bundleExports(js: string): string[] | null {
  const tail = js.slice(-20_000);
  const blocks = [...tail.matchAll(/^export \{([^}]*)\};$/gm)];
  const last = blocks.at(-1);
  if (!last) return null;
  const names = last[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => s.split(/\s+as\s+/).at(-1)!);
  return names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)) && names.length > 0 ? names : null;
}

let testConfig: string | null = null;
/** The repository's `wrangler.toml` for tests: no `[build]`, every path absolute (src/worker.ts bundled by each start). */
export function sourceConfigPath(): string {
  if (testConfig) return testConfig;
  const source = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
  const text = withoutBuild(source)
    .replace(/^main = "([^"]+)"$/m, (_m, p: string) => `main = ${JSON.stringify(resolve(REPO_ROOT, p))}`)
    .replace(/^directory = "([^"]+)"$/m, (_m, p: string) => `directory = ${JSON.stringify(resolve(REPO_ROOT, p))}`);
  if (!text.includes(`main = ${JSON.stringify(resolve(REPO_ROOT, "src/worker.ts"))}`) || /^\[build\]/m.test(text))
    throw new Error("sourceConfigPath: wrangler.toml no longer has the shape this harness rewrites");
  // Named by its content (absolute paths included), so checkouts never share one and a
  // second test process never rewrites the file a running wrangler watches.
  const file = writeOnce("highwater-e2e-config", "wrangler.toml", text);
  testConfig = file;
  return file;
}

/** The TOML text without its `[build]` table (up to the next table header). */
export function withoutBuild(toml: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of toml.split("\n")) {
    if (/^\s*\[/.test(line)) skipping = /^\s*\[build\]\s*$/.test(line);
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}
