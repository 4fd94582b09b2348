/** Tools as they cross the wire (docs/API.md#tools): `GET /v1/tools` and the hidden `stateDelta.toolset`. */

/** Where a tool comes from: `a2a:<agent>` is an agent of `A2A_AGENTS` (docs/API.md#a2a-agents). */
export type ToolSource = "builtin" | "custom" | `mcp:${string}` | `a2a:${string}`;

/** One tool of `GET /v1/tools`; `by-arguments` is a tool whose effect depends on its arguments (`http_fetch`). */
export type ToolInfo = {
  name: string;
  source: ToolSource;
  effect: "read" | "idempotent" | "write" | "by-arguments";
  description: string;
  inputSchema: Record<string, unknown>;
};

/**
 * `GET /v1/tools`: what a new session gets now, and the MCP servers that could not be listed, each
 * with why (docs/API.md#tools).
 */
export type ToolList = {
  tools: ToolInfo[];
  unavailable: { server: string; reason: "needs_authorization" | "unreachable" }[];
  /** Each listed MCP server and the protocol revision it was listed with ("2026-07-28", "2025-11-25"). */
  servers: { server: string; protocolVersion: string }[];
};

/** One entry of a recorded toolset. */
export type ToolsetEntry = {
  name: string;
  source: ToolSource;
  effect: ToolInfo["effect"];
  /** sha256 of the canonical `{ description, parameters }` the model sees. */
  schemaDigest: string;
};

/** The hidden `stateDelta.toolset`, recorded when the set the model is given changes. */
export type Toolset = {
  digest: string;
  tools: ToolsetEntry[];
  unavailable: string[];
  /** The protocol revision each listed MCP server speaks, by server name (absent: none listed). */
  protocols?: Record<string, string>;
};
