/**
 * Runs once before the e2e and browser tests: builds the console bundle the Worker serves.
 * Test `wrangler dev` processes run without `[build]` (see `testConfigPath`), so this is the
 * only build, and no test process ever watches or rebuilds.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup() {
  const root = fileURLToPath(new URL("../../", import.meta.url).href);
  execFileSync(process.execPath, ["scripts/build-ui.mjs"], { cwd: root, stdio: "inherit" });
}
