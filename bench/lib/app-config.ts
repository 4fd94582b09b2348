import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT, withoutBuild, writeOnce } from "./wrangler";

/**
 * A private copy of the app's wrangler.toml whose Worker is bench/app.ts (the app wrapped for
 * the bench), with paths made absolute, created once (`writeOnce`: a rewrite would reload a
 * running wrangler); `name` keeps the suites' copies apart.
 */
export function benchAppConfig(name: string): string {
  const text = withoutBuild(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"))
    .replace(/^main = "([^"]+)"$/m, () => `main = ${JSON.stringify(resolve(REPO_ROOT, "bench/app.ts"))}`)
    .replace(/^directory = "([^"]+)"$/m, (_m, p: string) => `directory = ${JSON.stringify(resolve(REPO_ROOT, p))}`);
  return writeOnce(`hw-${name}-bench`, "wrangler.toml", text);
}
