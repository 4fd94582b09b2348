/** Memory across sessions (docs/API.md#memory): a per-principal object, its routes, tools, and what a session is shown. */
import type { Feature } from "../types";
import { memoryRoutes } from "./routes";
import { foldMemoryShown, memoryContext, recordMemoryShown } from "./shown";
import { forgetTool, recallTool, rememberTool } from "./tools";

export const memory: Feature = {
  name: "memory",
  // A sub-session sees what its parent sees (docs/API.md §7.31).
  inheritOptions: ["memory"],
  routes: memoryRoutes,
  tools: [rememberTool, recallTool, forgetTool],
  fold: foldMemoryShown,
  beforeTurn: recordMemoryShown,
  context: memoryContext,
};
