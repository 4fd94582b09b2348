/**
 * `MCP_SERVERS` (docs/API.md#mcp-servers): a JSON array of servers, checked once per distinct
 * value. An invalid value is refused at the first request with 503 `not_configured` naming the
 * problem: the deployment never runs half-configured.
 */
import { z } from "zod";
import { isUrlAllowed, parseAllowedHosts } from "../hosts";

export const MCP_DEFAULT_TIMEOUT_MS = 60_000;

const Effect = z.enum(["read", "idempotent", "write"]);

const McpServerSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9_]{1,20}$/, "must match [a-z0-9_]{1,20}"),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  trust: z.enum(["annotations", "none"]).optional(),
  effects: z.record(z.string(), Effect).optional(),
  timeoutMs: z.number().int().min(1000).max(600_000).optional(),
  tools: z.array(z.string()).optional(),
});

export type McpServerConfig = {
  name: string;
  url: string;
  headers: Record<string, string>;
  trust: "annotations" | "none";
  effects: Record<string, "read" | "idempotent" | "write">;
  timeoutMs: number;
  tools: string[] | null;
};

export type McpConfigResult = { ok: true; servers: McpServerConfig[] } | { ok: false; message: string };

/** Parses and checks `MCP_SERVERS` against `HTTP_TOOL_ALLOWED_HOSTS`. Empty or unset: no servers. Pure. */
export function parseMcpServers(raw: string | undefined, allowedHostsCsv: string | undefined): McpConfigResult {
  if (raw === undefined || raw.trim() === "") return { ok: true, servers: [] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { ok: false, message: `MCP_SERVERS is not JSON: ${(err as Error).message}` };
  }
  const parsed = z.array(McpServerSchema).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `[${issue.path.join("].[")}]` : "";
    return { ok: false, message: `MCP_SERVERS${where}: ${issue.message}` };
  }
  const allowed = parseAllowedHosts(allowedHostsCsv);
  const seen = new Set<string>();
  const servers: McpServerConfig[] = [];
  for (const [i, s] of parsed.data.entries()) {
    if (seen.has(s.name)) return { ok: false, message: `MCP_SERVERS[${i}].name: duplicate server name "${s.name}"` };
    seen.add(s.name);
    if (!isUrlAllowed(new URL(s.url), allowed))
      return {
        ok: false,
        message: `MCP_SERVERS[${i}].url: host of ${s.url} does not match HTTP_TOOL_ALLOWED_HOSTS`,
      };
    servers.push({
      name: s.name,
      url: s.url,
      headers: s.headers ?? {},
      trust: s.trust ?? "none",
      effects: s.effects ?? {},
      timeoutMs: s.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS,
      tools: s.tools ?? null,
    });
  }
  return { ok: true, servers };
}

const cache = new Map<string, McpConfigResult>();

/** `parseMcpServers` of an environment, computed once per distinct value. */
export function mcpConfigOf(env: { MCP_SERVERS?: string; HTTP_TOOL_ALLOWED_HOSTS?: string }): McpConfigResult {
  const key = `${env.MCP_SERVERS ?? ""}\u0000${env.HTTP_TOOL_ALLOWED_HOSTS ?? ""}`;
  let result = cache.get(key);
  if (!result) {
    result = parseMcpServers(env.MCP_SERVERS, env.HTTP_TOOL_ALLOWED_HOSTS);
    cache.set(key, result);
  }
  return result;
}
