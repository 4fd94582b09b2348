/**
 * Runs once before the e2e and browser tests: builds the console bundle the Worker serves, and
 * bundles the repository's Worker once (`prebuildTestConfig`), so that no test `wrangler dev`
 * bundles src/ again. Test processes run without `[build]` (see `testConfigPath`), so these are
 * the only builds, and no test process ever watches or rebuilds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killListed, LIVE_DIR_ENV, PREBUILT_CONFIG_ENV, prebuildTestConfig } from "../../bench/lib/wrangler";

export default function setup() {
  const root = fileURLToPath(new URL("../../", import.meta.url).href);
  execFileSync(process.execPath, ["scripts/build-ui.mjs"], { cwd: root, stdio: "inherit" });
  const { config, dir } = prebuildTestConfig();
  // The test files' processes start after this and inherit it.
  process.env[PREBUILT_CONFIG_ENV] = config;
  const live = mkdtempSync(join(tmpdir(), "highwater-e2e-live-"));
  process.env[LIVE_DIR_ENV] = live;
  return () => {
    // A wrangler left by a test worker that was killed (a timed-out file) ends with the run.
    killListed(live);
    rmSync(live, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
}
