/**
 * Tests of the harness's `wrangler dev` processes: the config they run, their ports and
 * process group, and that starting one never disturbs another already running.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { customToolsConfig } from "../custom/config";
import {
  bundleExports,
  groupAlive,
  makePersistDir,
  REPO_ROOT,
  sourceConfigPath,
  startWrangler,
  testConfigPath,
  withoutBuild,
} from "./wrangler";

describe("the test wrangler config", () => {
  it("is wrangler.toml without its [build] table, every other table kept", () => {
    const toml = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
    expect(toml).toMatch(/^\[build\]$/m);
    const stripped = withoutBuild(toml);
    expect(stripped).not.toMatch(/^\[build\]|^watch_dir|^command = /m);
    const tables = (t: string) => t.match(/^\[+[^\]]+\]+$/gm) ?? [];
    expect(tables(stripped)).toEqual(tables(toml).filter((h) => h !== "[build]"));
    const generated = readFileSync(sourceConfigPath(), "utf8");
    expect(generated).toContain(`main = ${JSON.stringify(join(REPO_ROOT, "src/worker.ts"))}`);
    expect(generated).not.toMatch(/^\[build\]/m);
  });

  it("in a run, is that config over the Worker bundled once, which a start runs as is", () => {
    // test/e2e/global-setup.ts bundled it: each start skips bundling src/ again. Its entry only
    // re-exports the bundle by name (prebuildConfig), which is attached as a module.
    const run = readFileSync(testConfigPath(), "utf8");
    expect(run).toMatch(/^no_bundle = true$/m);
    const main = JSON.parse(/^main = (".*")$/m.exec(run)?.[1] ?? '""') as string;
    expect(main).toMatch(/highwater-e2e-bundle-[^/]+\/dist\/entry\.js$/);
    const bundle = readFileSync(join(dirname(main), "worker.js"), "utf8");
    const names = bundleExports(bundle);
    expect(names).toEqual(expect.arrayContaining(["default", "SessionObject", "DirectoryObject"]));
    expect(readFileSync(main, "utf8")).toBe(`export { ${names!.join(", ")} } from "./worker.js";\n`);
    const rule = '\n[[rules]]\ntype = "ESModule"\nglobs = ["worker.js"]\n';
    expect(run.endsWith(rule)).toBe(true);
    const rest = (t: string) => t.replace(/^main = .*\n(no_bundle = true\n)?/m, "").replace(/\n*$/, "\n");
    expect(rest(run.slice(0, -rule.length))).toBe(rest(readFileSync(sourceConfigPath(), "utf8")));
  });
});

describe("wrangler dev harness", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("starts on free ports, answers /healthz, and kill9 takes the whole process group down", async () => {
    const persistTo = makePersistDir();
    dirs.push(persistTo);
    const w = await startWrangler({ persistTo, vars: { API_TOKENS: "harness-token" } });
    try {
      expect(w.url).toBe(`http://127.0.0.1:${w.port}`);
      expect(w.logs()).toMatch(/Ready on http:\/\/127\.0\.0\.1:\d+/);
      expect((await fetch(`${w.url}/healthz`)).status).toBe(200);
      // Test processes never run the console build and never watch for changes (issue 13).
      expect(w.logs()).not.toMatch(/custom build|restarting build/);
      await w.kill9();
      expect(w.exited).toBe(true);
      // Nothing of the group runs any more (a zombie left for its adopter to reap does not run).
      expect(groupAlive(w.pid)).toBe(false);
      await expect(fetch(`${w.url}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    } finally {
      await w.stop();
    }
    // Restart on the same persist dir, then a graceful stop.
    const again = await startWrangler({ persistTo, vars: { API_TOKENS: "harness-token" } });
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    await again.stop();
    expect(again.exited).toBe(true);
    expect(groupAlive(again.pid)).toBe(false);
  });
});

describe("two cases from one config", () => {
  // A crash case sat at its failpoint while the next case started: the start rewrote the
  // shared config file, the watching wrangler reloaded workerd, and the object recovered the
  // call before the kill (the idempotent F5 case saw its request twice).
  it("starting a second wrangler from a config leaves the first one's workerd running", async () => {
    const dirs = [makePersistDir(), makePersistDir()];
    const first = await startWrangler({ persistTo: dirs[0]!, config: customToolsConfig(), vars: { API_TOKENS: "t" } });
    try {
      const second = await startWrangler({
        persistTo: dirs[1]!,
        config: customToolsConfig(),
        vars: { API_TOKENS: "t" },
      });
      await second.stop();
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
      expect(first.logs()).not.toContain("Reloading local server");
    } finally {
      await first.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
