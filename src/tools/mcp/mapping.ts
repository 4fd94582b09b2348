/**
 * Pure rules for MCP tools (docs/API.md#mcp-servers): the name the model sees, the effect a call
 * is dispatched with, and how a `tools/call` result becomes a tool outcome.
 */
import type { ToolEffect } from "../../log";
import type { McpServerConfig } from "./config";

/** `<server>__<tool>`, characters outside `[A-Za-z0-9_-]` replaced by `_`, cut to 64 characters. */
export function mcpModelName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

export type McpAnnotations = { readOnlyHint?: unknown; idempotentHint?: unknown };

/** `effects[tool]` wins; with `trust: "annotations"` the hints decide; otherwise (or unknown) `write`. */
export function mcpEffect(
  server: Pick<McpServerConfig, "effects" | "trust">,
  tool: string,
  annotations?: McpAnnotations,
): ToolEffect {
  if (Object.hasOwn(server.effects, tool)) return server.effects[tool]!;
  if (server.trust === "annotations") {
    if (annotations?.readOnlyHint === true) return "read";
    if (annotations?.idempotentHint === true) return "idempotent";
  }
  return "write";
}

export type McpCallOutcome = { status: "ok" | "error"; response: unknown };

/**
 * A `tools/call` result as the response the model reads: text parts joined with "\n", other parts
 * kept as JSON (a single text means a string response), plus `structured` from
 * `structuredContent`; `isError: true` is status `error`.
 */
export function mapCallResult(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}): McpCallOutcome {
  const parts = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  const others: unknown[] = [];
  for (const part of parts) {
    if (part && typeof part === "object" && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text;
      texts.push(typeof text === "string" ? text : JSON.stringify(text));
    } else others.push(part);
  }
  const status = result.isError === true ? "error" : "ok";
  const structured = result.structuredContent;
  if (others.length === 0 && structured === undefined && status === "ok") return { status, response: texts.join("\n") };
  return {
    status,
    response: {
      ...(texts.length > 0 ? { text: texts.join("\n") } : {}),
      ...(others.length > 0 ? { content: others } : {}),
      ...(structured !== undefined ? { structured } : {}),
    },
  };
}
