/**
 * `GET /v1/tools` (docs/API.md#tools): what a new session gets now, and the check of a new
 * session's `tools` and approval rules against it. The Worker isolate lists the MCP servers
 * itself, cached 5 minutes like a session object; the features' tools from the Worker's vars (an
 * A2A agent's) are read from those vars.
 */
import { ApiError, type ToolInfo, type ToolList } from "../contract";
import { tokenSourceOf } from "../session/token-store";
import { type AnyTool, staticTools, toolSpecs, validateApprovalRules } from "../tools";
import { declaredEffect, type McpHub, mcpHubFor } from "../tools/mcp";
import { mcpToolsFor } from "../tools/mcp/toolset";
import { resource } from "./routing";
import type { EdgeApp, EdgeFeature } from "./types";

export type ToolListing = ToolList;

let listers: readonly NonNullable<EdgeFeature["listedTools"]>[] = [];

/** Makes the features' `listedTools` those of this isolate's edge (one deployment per isolate, like the static tools). */
export function installListedTools(features: readonly EdgeFeature[]): void {
  listers = features.flatMap((f) => (f.listedTools ? [f.listedTools] : []));
}

/** The features' tools a new session gets now, from the Worker's vars. */
function listedTools(env: Env): ToolInfo[] {
  return listers.flatMap((list) => [...list(env as unknown as Record<string, unknown>)]);
}

/** One hub per principal (an OAuth server lists what that principal's token sees), the last 100 kept. */
const hubs = new Map<string, McpHub>();

function hubOf(env: Env, principal: string): McpHub {
  const key = `${env.MCP_SERVERS ?? ""}\u0000${env.HTTP_TOOL_SECRETS ?? ""}\u0000${principal}`;
  let hub = hubs.get(key);
  if (!hub) {
    const fetchFn = (i: RequestInfo | URL, init?: RequestInit) => fetch(i, init);
    hub = mcpHubFor(env, { fetch: fetchFn, tokens: tokenSourceOf(env, () => principal, fetchFn) });
    if (hubs.size >= 100) hubs.delete(hubs.keys().next().value!);
    hubs.set(key, hub);
  }
  return hub;
}

/** Every tool a new session may be given: the static tools, each available MCP server's, then the features' listed ones. */
export async function listTools(env: Env, principal: string): Promise<ToolListing> {
  const registry = staticTools();
  const statics = Object.values(registry) as AnyTool[];
  const specs = toolSpecs(statics);
  const mcp = hubOf(env, principal);
  const listing = mcp.configured ? await mcp.list() : { tools: [], unavailable: [] };
  const mcpTools = mcpToolsFor(listing, undefined, registry);
  return {
    tools: [
      ...statics.map((t, i) => ({
        name: t.name,
        source: t.source ?? "builtin",
        effect: declaredEffect(t),
        description: t.description,
        inputSchema: specs[i]!.parameters,
      })),
      ...mcpTools.map((t) => ({
        name: t.name,
        source: `mcp:${t.server}` as const,
        effect: t.effect,
        description: t.description,
        inputSchema: t.parameters,
      })),
      ...listedTools(env),
    ],
    unavailable: listing.unavailable,
    servers: listing.servers ?? [],
  };
}

/**
 * A new session's `tools` and approval rules name tools of `GET /v1/tools` (400 otherwise). The
 * MCP servers are listed only when a name is neither a static tool's nor a feature's listed one; a name of an unavailable server
 * cannot be checked now and is accepted (its calls answer `tool_unavailable` while it is down).
 */
export async function checkToolNames(
  env: Env,
  principal: string,
  opts: { tools?: string[]; approvals?: { tool: string; match?: Record<string, string[]> }[] },
): Promise<void> {
  const statics = [...Object.keys(staticTools()), ...listedTools(env).map((t) => t.name)];
  const named = [...(opts.tools ?? []), ...(opts.approvals ?? []).map((r) => r.tool)];
  let known = statics;
  const mcp = hubOf(env, principal);
  if (named.some((n) => !statics.includes(n)) && mcp.configured) {
    const listing = await mcp.list();
    const down = listing.unavailable.map((u) => `${u.server}__`);
    known = [
      ...statics,
      ...listing.tools.map((t) => t.name),
      ...named.filter((n) => down.some((p) => n.startsWith(p))),
    ];
  }
  const unknownTool = opts.tools?.find((t) => !known.includes(t));
  if (unknownTool) throw new ApiError("bad_request", `tools: unknown tool ${unknownTool}`);
  const ruleError = validateApprovalRules(opts.approvals ?? [], opts.tools ?? known);
  if (ruleError) throw new ApiError("bad_request", `approvals: ${ruleError}`);
}

export function toolRoutes(app: EdgeApp): void {
  resource(app, "/v1/tools", {
    GET: async (c) => c.json(await listTools(c.env, c.get("principal"))),
  });
}
