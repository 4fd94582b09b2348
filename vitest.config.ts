import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import LongestFirst from "./test/sequencer.ts";

export default defineConfig({
  test: {
    // Vitest's default (cores − 1) runs every file one after another on a 2-core machine, while
    // most of an e2e file's time is spent waiting on wrangler processes it started. Four at a time
    // once starved the crash files' restarts into their timeouts (36 minutes, 9 timeouts); since
    // the workerd projects stopped starting a runtime per file (isolate: false below) and starts
    // got cheaper, three fit. The longest files start first, whatever their project
    // (test/sequencer.ts), so the short ones fill in beside them instead of the last crash file
    // setting the suite's end. HW_TEST_WORKERS overrides the count.
    maxWorkers: Number(process.env.HW_TEST_WORKERS) || Math.max(3, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // The runtime's modules reach the migrations (text modules under wrangler): Node reads them as text too.
        plugins: [
          {
            name: "sql-as-text",
            transform: (code: string, id: string) =>
              id.endsWith(".sql") ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined,
          },
        ],
        test: {
          name: "unit",
          // Each file in a fresh module graph: with shared graphs (isolate: false) a fake provider's
          // "connection lost mid-stream" case once hung to its timeout in a full run (Node's shared
          // fetch pool and servers on reused ports are global state), for about 47 s of CPU saved.
          // A feature's tests live together in test/features/<name>/: plain `*.test.ts` run in Node,
          // `*.do.test.ts` inside workerd, `*.e2e.test.ts` against real wrangler processes.
          include: ["test/unit/**/*.test.ts", "src/**/*.test.ts", "test/features/**/*.test.ts"],
          exclude: ["test/features/**/*.do.test.ts", "test/features/**/*.e2e.test.ts"],
          environment: "node",
          // Beside the e2e files a CPU-bound unit test can take several times its idle time.
          testTimeout: 30_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                API_TOKENS: "test-token-a,test-token-b",
                ALLOWED_ORIGINS: "https://console.example",
                HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
                HW_TEST_MODE: "1",
                // workerd implements no jurisdictions; the placement tests see them recorded (src/http/sessions.ts).
                HW_SIMULATE_JURISDICTIONS: "1",
              },
            },
          }),
        ],
        test: {
          name: "do",
          // One workerd per test worker, reused by the files it runs, instead of a new one per file
          // with the whole Worker evaluated again: 63 s of CPU for the project instead of 430. Every
          // file makes its own sessions (random ids), so none depends on what another left.
          isolate: false,
          include: ["test/do/**/*.test.ts", "test/features/**/*.do.test.ts"],
          exclude: ["test/do/skills/**"],
          testTimeout: 30_000,
        },
      },
      {
        // The same Worker with a deployment skill bundled (test/do/skills/worker.ts).
        plugins: [
          cloudflareTest({
            main: "./test/do/skills/worker.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { API_TOKENS: "test-token-a,test-token-b", HW_TEST_MODE: "1" } },
          }),
        ],
        test: { name: "do-skills", include: ["test/do/skills/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        // A deployment with one more feature (test/plugin/worker.ts): the plug-in test.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./test/plugin/wrangler.toml" },
            miniflare: { bindings: { API_TOKENS: "test-token-a,test-token-b", HW_TEST_MODE: "1" } },
          }),
        ],
        test: { name: "plugin", include: ["test/plugin/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        test: {
          name: "e2e",
          // A test worker runs its files one after another in one process (each cleans up what it
          // started), instead of a new process and module graph per file.
          isolate: false,
          include: ["test/e2e/**/*.test.ts", "test/browser/**/*.test.ts", "test/features/**/*.e2e.test.ts"],
          // The console is built once here; test wrangler processes never build or watch.
          globalSetup: ["test/e2e/global-setup.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: true,
        },
      },
    ],
  },
});
