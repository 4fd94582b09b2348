/**
 * The tool settings of a deployment, checked at the first request (docs/API.md#configuration):
 * `MCP_SERVERS`, `HTTP_TOOL_SECRETS`, and the length of every secret they name. A problem makes
 * every `/v1` request answer 503 `not_configured` naming it (never a value), so a deployment never
 * runs with a setting it silently ignores.
 */
import { mcpConfigOf } from "./mcp/config";
import { MIN_SECRET_CHARS, secretHostsProblem, secretNamesInUse, secretValues } from "./secrets";

type ToolEnv = { MCP_SERVERS?: string; HTTP_TOOL_SECRETS?: string; TOKEN_ENCRYPTION_KEY?: string; TOKENS?: unknown };

/** The least length of `TOKEN_ENCRYPTION_KEY` (docs/API.md#mcp-servers-behind-oauth). */
export const MIN_TOKEN_KEY_CHARS = 32;

/** The first problem of the environment's tool settings, or null. */
export function toolConfigProblem(env: ToolEnv): string | null {
  const mcp = mcpConfigOf(env);
  if (!mcp.ok) return mcp.message;
  const oauth = mcp.servers.find((s) => s.auth);
  if (oauth && (env.TOKEN_ENCRYPTION_KEY ?? "").length < MIN_TOKEN_KEY_CHARS)
    return `MCP server ${oauth.name} uses OAuth: the Worker secret TOKEN_ENCRYPTION_KEY must be set (at least ${MIN_TOKEN_KEY_CHARS} characters)`;
  if (oauth && !env.TOKENS)
    return `MCP server ${oauth.name} uses OAuth: the Durable Object binding TOKENS (class TokenObject) is missing`;
  const hosts = secretHostsProblem(env.HTTP_TOOL_SECRETS);
  if (hosts) return hosts;
  const values = secretValues(env, secretNamesInUse(env));
  for (const [name, value] of Object.entries(values))
    if (value.length < MIN_SECRET_CHARS)
      return `secret ${name} is shorter than ${MIN_SECRET_CHARS} characters: too short to keep out of the log`;
  return null;
}
