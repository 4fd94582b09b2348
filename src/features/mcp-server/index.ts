/**
 * A session as an MCP server (docs/API.md#a-session-as-an-mcp-server): the `/mcp` route at the
 * edge, and in the session object one read, `task`, the state of a task read from the log.
 */
import type { EdgeFeature } from "../../http/types";
import type { ObjectFeature } from "../../session/feature";
import { FEATURE, mcpRoutes } from "./routes";
import { readTaskState } from "./task-state";

export const mcpServer: ObjectFeature & EdgeFeature = {
  name: FEATURE,
  routes: mcpRoutes,
  operations: { task: readTaskState },
};
