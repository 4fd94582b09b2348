/**
 * The demo model's "use <tool>" (README "Connect your tools"): it finds the tool a message names
 * and builds arguments from the tool's JSON schema, with a plausible value for each required field.
 */
import type { ToolSpec } from "./types";

const USE = /\buse\s+([A-Za-z0-9_-]+)/i;

/** The tool a task asks for with "use <name>": an exact name, else the one tool named `<server>__<name>`. */
export function toolNamedIn(task: string, tools: readonly ToolSpec[]): ToolSpec | null {
  const wanted = USE.exec(task)?.[1];
  if (!wanted) return null;
  const exact = tools.find((t) => t.name === wanted);
  if (exact) return exact;
  const suffixed = tools.filter((t) => t.name.endsWith(`__${wanted}`));
  return suffixed.length === 1 ? suffixed[0]! : null;
}

type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  required?: unknown;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** Arguments for an object schema: each required property with its default, const, first enum value or an example. */
export function argsFromSchema(schema: unknown, depth = 0): Record<string, unknown> {
  const s = (schema ?? {}) as Schema;
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
  const out: Record<string, unknown> = {};
  for (const key of required) out[key] = exampleValue(key, s.properties?.[key] ?? {}, depth + 1);
  return out;
}

function exampleValue(key: string, s: Schema, depth: number): unknown {
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const variant = s.anyOf?.[0] ?? s.oneOf?.[0];
  if (variant) return exampleValue(key, variant, depth);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? Math.max(s.minimum, 1) : 2;
    case "boolean":
      return true;
    case "array":
      return depth > 4 || !s.items ? [] : [exampleValue(key, s.items, depth + 1)];
    case "object":
      return depth > 4 ? {} : argsFromSchema(s, depth);
    case "null":
      return null;
    default:
      return `hello from highwater (${key})`;
  }
}
