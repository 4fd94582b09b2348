/** MCP servers as a tool source (docs/API.md#mcp-servers). */
import { redactSecrets, secretNamesInUse, secretValues } from "../secrets";
import type { McpTokenSource } from "./client";
import { mcpConfigOf } from "./config";
import { McpHub } from "./hub";

export { MCP_TOOL_BOUNDS } from "./bounds";
export type { McpTokenSource } from "./client";
export { IDEMPOTENCY_META, type ListedTool, MCP_LIMITS, McpCallError, McpConnection } from "./client";
export {
  MCP_DEFAULT_TIMEOUT_MS,
  type McpConfigResult,
  type McpServerConfig,
  mcpConfigOf,
  mcpHostsDeniedToFetch,
  parseMcpServers,
} from "./config";
export {
  FAILED_LISTING_TTL_MS,
  LISTING_TTL_MS,
  MCP_CALL_RETRIES,
  McpHub,
  type McpListing,
  type McpToolSpec,
} from "./hub";
export { mapCallResult, mcpEffect, mcpModelName } from "./mapping";

export {
  beginAuthorization,
  finishAuthorization,
  type McpTokenStore,
  NeedsAuthorization,
  type PendingAuthorization,
  type StoredGrant,
} from "./oauth";
export { buildToolset, declaredEffect, type ToolsetEntry, type ToolsetRecord } from "./toolset";

type McpEnv = { MCP_SERVERS?: string };

/**
 * A hub over the environment's servers (none when `MCP_SERVERS` is unset or invalid: the edge
 * refuses then); `tokens` are one principal's, for the servers behind OAuth.
 */
export function mcpHubFor(
  env: McpEnv,
  opts: { fetch: typeof fetch; now?: () => number; tokens?: McpTokenSource },
): McpHub {
  const config = mcpConfigOf(env);
  const vars = env as Record<string, unknown>;
  const secrets = secretValues(env, secretNamesInUse(env));
  return new McpHub(config.ok ? config.servers : [], {
    fetch: opts.fetch,
    secret: (name) => (typeof vars[name] === "string" ? (vars[name] as string) : undefined),
    now: opts.now ?? Date.now,
    ...(opts.tokens ? { tokens: opts.tokens } : {}),
    redact: (value) => redactSecrets(value, secrets),
  });
}
