/** MCP servers as a tool source (docs/API.md#mcp-servers). */
import { parseAllowedHosts } from "../hosts";
import { mcpConfigOf } from "./config";
import { McpHub } from "./hub";

export { IDEMPOTENCY_META, type ListedTool, MCP_LIMITS, McpCallError, McpConnection } from "./client";
export {
  MCP_DEFAULT_TIMEOUT_MS,
  type McpConfigResult,
  type McpServerConfig,
  mcpConfigOf,
  parseMcpServers,
} from "./config";
export { LISTING_TTL_MS, MCP_CALL_RETRIES, McpHub, type McpListing, type McpToolSpec } from "./hub";
export { mapCallResult, mcpEffect, mcpModelName } from "./mapping";
export { buildToolset, declaredEffect, type ToolsetEntry, type ToolsetRecord } from "./toolset";

type McpEnv = { MCP_SERVERS?: string; HTTP_TOOL_ALLOWED_HOSTS?: string };

/** A hub over the environment's servers (none when `MCP_SERVERS` is unset or invalid: the edge refuses then). */
export function mcpHubFor(env: McpEnv, opts: { fetch: typeof fetch; now?: () => number }): McpHub {
  const config = mcpConfigOf(env);
  const vars = env as Record<string, unknown>;
  return new McpHub(config.ok ? config.servers : [], {
    fetch: opts.fetch,
    allowedHosts: parseAllowedHosts(env.HTTP_TOOL_ALLOWED_HOSTS),
    secret: (name) => (typeof vars[name] === "string" ? (vars[name] as string) : undefined),
    now: opts.now ?? Date.now,
  });
}
