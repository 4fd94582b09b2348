/**
 * The set of tools a turn gives the model (docs/API.md#mcp-servers), recorded as a hidden
 * `stateDelta.toolset` whenever its digest changes. The MCP tools' descriptions and schemas are
 * kept in the session's blob store, so a request rebuilt after a restart has the same bytes with no
 * server reachable. Pure.
 */

import type { Toolset } from "../../contract/tools";
import { canonical, sha256Hex, type ToolEffect } from "../../log";
import { type AnyTool, type ToolSpec, toolSpecs } from "../registry";
import type { McpListing, McpToolSpec } from "./hub";

export type { ToolsetEntry } from "../../contract/tools";

import type { ToolsetEntry } from "../../contract/tools";
/** The recorded toolset (docs/API.md#tools). */
export type ToolsetRecord = Toolset;

/** A static tool's effect as `GET /v1/tools` and the toolset state it. */
export function declaredEffect(tool: AnyTool): ToolEffect | "by-arguments" {
  if (tool.declaredEffect) return tool.declaredEffect;
  try {
    return tool.effect({});
  } catch {
    return "by-arguments";
  }
}

function specDigest(spec: Pick<ToolSpec, "description" | "parameters">): string {
  return sha256Hex(canonical({ description: spec.description, parameters: spec.parameters }));
}

/**
 * The MCP tools a session may have: all of them, or those its `tools` option names. One whose
 * name a static tool has is left out, so the model is never given one name twice (start-up
 * refuses static names with `__`; this holds whatever the registry).
 */
export function mcpToolsFor(
  listing: McpListing,
  enabled: readonly string[] | undefined,
  statics: Readonly<Record<string, unknown>>,
): McpToolSpec[] {
  const wanted = enabled ? new Set(enabled) : null;
  return listing.tools.filter((t) => !Object.hasOwn(statics, t.name) && (!wanted || wanted.has(t.name)));
}

/**
 * The toolset record for the static tools a session enables and the MCP tools it gets, sorted by
 * name, with the protocol revision each listed server speaks (`protocols`, only when one was listed).
 */
export function buildToolset(
  staticEnabled: AnyTool[],
  mcp: McpToolSpec[],
  unavailable: string[],
  protocols: Record<string, string> = {},
): ToolsetRecord {
  const tools: ToolsetEntry[] = [
    ...toolSpecs(staticEnabled).map((spec, i) => ({
      name: spec.name,
      source: staticEnabled[i]!.source ?? "builtin",
      effect: declaredEffect(staticEnabled[i]!),
      schemaDigest: specDigest(spec),
    })),
    ...mcp.map((t) => ({
      name: t.name,
      source: `mcp:${t.server}` as const,
      effect: t.effect,
      schemaDigest: specDigest(t),
    })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sortedUnavailable = [...unavailable].sort();
  const hasProtocols = Object.keys(protocols).length > 0;
  return {
    digest: sha256Hex(canonical({ tools, unavailable: sortedUnavailable, ...(hasProtocols ? { protocols } : {}) })),
    tools,
    unavailable: sortedUnavailable,
    ...(hasProtocols ? { protocols } : {}),
  };
}

/** The JSON the blob of a toolset holds: the MCP tools as given, in listing order. */
export function serializeMcpSpecs(specs: McpToolSpec[]): string {
  return canonical(specs);
}
