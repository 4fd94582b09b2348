/** What an MCP server answers, checked loosely where the SDK's own schemas would refuse too much. */
import { z } from "zod";

/** A `tools/list` page checked loosely, so that one bad tool is skipped instead of the whole server. */
export const ListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
/** One tool, checked as the spec says a tool is (what the model is given depends on these fields). */
export const ToolShape = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object") }),
  annotations: z.looseObject({}).optional(),
});

/** Any result object: task answers are read by `tasks.ts`, not by the SDK's tools/call schema. */
export const AnyResult = z.looseObject({});
