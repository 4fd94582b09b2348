import { z } from "zod";
import { toolError } from "../../tools/builtin/text";
import { staticTools } from "../../tools/registry";
import type { ToolDefinition } from "../../tools/types";

/** docs/API.md §2: a goal is a message, so it follows the message limit. */
const MAX_GOAL_CHARS = 262_144;

/**
 * The deployment's static tool names (the registry is installed at start-up, before any call). An
 * MCP tool's name (`<server>__<tool>`; no static name has `__`) is checked against the spawning
 * session's toolset when the child is made.
 */
const knownTools = () => Object.keys(staticTools());

const SpawnSessionInput = z.strictObject({
  goal: z
    .string()
    .min(1)
    .max(MAX_GOAL_CHARS)
    .refine((g) => g.trim().length > 0, "goal: must not be blank")
    .describe("The task for the sub-session: its first message."),
  tools: z
    .array(z.string().max(64))
    .max(64)
    .refine((names) => names.every((n) => n.includes("__") || knownTools().includes(n)), "tools: unknown tool name")
    .optional()
    .describe(
      "Tools the sub-session may use, built-in or MCP (`<server>__<tool>`, one this session has) (default: the same as this session).",
    ),
});
export type SpawnSessionArgs = z.infer<typeof SpawnSessionInput>;

/**
 * `spawn_session` (docs/API.md §6, §7.31): creates a child session for the goal and waits for it.
 * Its response is not this run's outcome but the child's report when its turn closes, appended
 * by the parent once per call; the run only creates (or re-attaches to) the child.
 */
export const spawnSessionTool: ToolDefinition<SpawnSessionArgs> = {
  name: "spawn_session",
  description:
    "Start a sub-session that works on `goal` on its own (its own log, context and workspace) and wait for it. The response is { sessionId, status, result }: how its turn closed and its last answer.",
  input: SpawnSessionInput,
  effect: () => "idempotent",
  async run(args, ctx) {
    if (!ctx.spawnChild) return toolError("unavailable", "sub-sessions are not available here");
    return ctx.spawnChild(args);
  },
};
