/**
 * The official MCP conformance suite's client scenarios (`@modelcontextprotocol/conformance`)
 * against highwater's MCP client (docs/API.md#mcp-protocol-versions): the suite starts a server
 * per scenario and runs `conformance-client.ts` (bundled here with esbuild) against it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../../..");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
let dir = "";
let entry = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hw-conformance-"));
  entry = join(dir, "client.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "conformance-client.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile: entry,
    logLevel: "error",
    loader: { ".sql": "text" },
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scenarios that must pass. */
const PASSING = [
  "initialize",
  "tools_call",
  "sse-retry",
  "elicitation-sep1034-client-defaults",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/client-credentials-basic",
];

async function runScenario(scenario: string) {
  return promisify(execFile)(
    process.execPath,
    [SUITE, "client", "--command", `${process.execPath} ${entry}`, "--scenario", scenario, "--timeout", "60000"],
    { timeout: 120_000, cwd: dir },
  ).catch((e: { stdout?: string; stderr?: string }) => e);
}

describe("MCP conformance suite (client scenarios)", () => {
  for (const scenario of PASSING)
    it(scenario, { timeout: 150_000 }, async () => {
      const run = await runScenario(scenario);
      expect(run.stdout, `${run.stdout}\n${run.stderr}`).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    });
});
