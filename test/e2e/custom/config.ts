/** `wrangler dev` configs for deployments other than the repository's own (the e2e test deployment, the example). */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { PREBUILT_CONFIG_ENV, prebuildConfig, REPO_ROOT, withoutBuild, writeOnce } from "../harness/wrangler";

/** The repository's `wrangler.toml` (without `[build]`, without assets) with `main` set to `mainFile` (absolute). */
export function configWithMain(mainFile: string): string {
  const source = withoutBuild(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"));
  const text = withoutTable(source, "assets").replace(/^main = "([^"]+)"$/m, `main = ${JSON.stringify(mainFile)}`);
  if (!text.includes(`main = ${JSON.stringify(mainFile)}`)) throw new Error("configWithMain: no main line to rewrite");
  return writeOnce("highwater-e2e-main", "wrangler.toml", text);
}

const bundled = new Map<string, string>();
/**
 * `source` with its Worker bundled once for this test process (`prebuildConfig`, as the e2e
 * global setup does for the repository's Worker), so each start skips bundling it again. In an
 * e2e run the bundle goes into the run's own bundle folder, which the global setup removes when
 * the run ends (a test process is ended without its exit hooks); outside one, at process exit.
 */
function bundledOnce(source: string): string {
  let config = bundled.get(source);
  if (!config) {
    const run = process.env[PREBUILT_CONFIG_ENV];
    const built = prebuildConfig(source, run ? dirname(run) : undefined);
    if (!run) process.once("exit", () => rmSync(built.dir, { recursive: true, force: true }));
    config = built.config;
    bundled.set(source, config);
  }
  return config;
}

/** The test deployment with custom tools (test/e2e/custom/worker.ts), bundled once per test process. */
export const customToolsConfig = () => bundledOnce(configWithMain(join(REPO_ROOT, "test/e2e/custom/worker.ts")));
/** The example deployment, run as its README says. */
export const EXAMPLE_CONFIG = "examples/custom-tool/wrangler.toml";

function withoutTable(toml: string, table: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of toml.split("\n")) {
    if (/^\s*\[/.test(line)) skipping = line.trim() === `[${table}]`;
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}
