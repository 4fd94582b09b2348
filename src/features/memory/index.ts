/** Memory across sessions (docs/API.md#memory): a per-principal object, its routes and tools. */
import type { Feature } from "../types";
import { memoryRoutes } from "./routes";
import { forgetTool, recallTool, rememberTool } from "./tools";

export { MemoryObject } from "./object";

export const memory: Feature = {
  name: "memory",
  routes: memoryRoutes,
  tools: [rememberTool, recallTool, forgetTool],
};
