/**
 * The example deployment (examples/custom-tool) builds as a real Worker from the package entry:
 * `wrangler deploy --dry-run` bundles it offline and lists its bindings.
 *
 *   npx vitest run --project e2e test/e2e/example-deploy.test.ts
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./harness/wrangler";

describe("examples/custom-tool", () => {
  const outdir = mkdtempSync(join(tmpdir(), "hw-example-dry-"));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("wrangler deploy --dry-run succeeds and the bundle holds its tool, its skill and its Durable Objects", () => {
    const run = spawnSync(
      "npx",
      ["wrangler", "deploy", "--dry-run", "--outdir", outdir, "-c", "examples/custom-tool/wrangler.toml"],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 180_000,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "1" },
      },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/env\.SESSIONS \(SessionObject\)\s+Durable Object/);
    expect(output).toMatch(/env\.DIRECTORY \(DirectoryObject\)\s+Durable Object/);
    expect(output).toMatch(/env\.SKILLS \(SkillsObject\)\s+Durable Object/);
    const bundle = readFileSync(join(outdir, "worker.js"), "utf8");
    expect(bundle).toContain('name: "lookup_order"');
    // The skill is an additional text module of the upload, beside the bundle.
    const modules = readdirSync(outdir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
    expect(modules.some((f) => readFileSync(join(outdir, f), "utf8").includes("name: release-notes"))).toBe(true);
    expect(bundle).toMatch(/export\s*\{[^}]*SessionObject/);
  }, 200_000);
});
