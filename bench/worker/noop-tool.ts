import { z } from "zod";
import { FEATURES } from "../../src/features";
import { buildStaticTools, installStaticTools } from "../../src/tools";
import type { ToolDefinition } from "../../src/tools/types";

/** How many times the tool ran in this isolate (the steps benches check every call ran it). */
export const noopRuns = { n: 0 };

/**
 * The step benches' tool: it does nothing, as the closure of Restate's `ctx.run` no-op does, so a
 * durable step measures the step (T1, run, T2, the plan), not a tool's own work. (Until stop 38 it
 * was `list_files`, whose SQL read of the workspace was a sixth of a step.)
 */
export const noopTool: ToolDefinition<Record<string, never>> = {
  name: "noop",
  description: "Does nothing.",
  input: z.strictObject({}),
  effect: () => "read",
  async run() {
    noopRuns.n++;
    return { status: "ok", response: null };
  },
};

/** The deployment's features, as createHighwater hands them to the real object, and the bench's tool. */
export const BENCH_FEATURES = [...FEATURES, { name: "bench", tools: [noopTool] }];

// The isolate's tools, as createHighwater installs them: the built-ins, the features' and the bench's.
installStaticTools(buildStaticTools([], BENCH_FEATURES));
