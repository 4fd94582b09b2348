import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT, withoutBuild } from "./wrangler";

/**
 * A private copy of the app's wrangler.toml whose Worker is bench/app.ts (the app wrapped for
 * the bench), with paths made absolute; `name` keeps concurrent benches' copies apart.
 */
export function benchAppConfig(name: string): string {
  const text = withoutBuild(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"))
    .replace(/^main = "([^"]+)"$/m, () => `main = ${JSON.stringify(resolve(REPO_ROOT, "bench/app.ts"))}`)
    .replace(/^directory = "([^"]+)"$/m, (_m, p: string) => `directory = ${JSON.stringify(resolve(REPO_ROOT, p))}`);
  const dir = join(tmpdir(), `hw-${name}-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "wrangler.toml");
  writeFileSync(file, text);
  return file;
}
