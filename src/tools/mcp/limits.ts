/** Bounds on what an MCP server may send (docs/API.md#mcp-servers). */
export const MCP_LIMITS = {
  /** Bytes of one HTTP answer: a result like `http_fetch`'s body, a listing page. */
  responseBytes: 10 * 1024 * 1024,
  listPages: 100,
  /** Tools kept from one server (after its `tools` filter). */
  toolsPerServer: 1000,
  listTimeoutMs: 15_000,
};
