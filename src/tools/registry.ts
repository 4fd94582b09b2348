import { z } from "zod";
import {
  deleteFileTool,
  editFileTool,
  listFilesTool,
  readFileTool,
  searchFilesTool,
  writeFileTool,
} from "./builtin/files";
import { httpFetchTool } from "./builtin/http-fetch";
import { readArchiveTool } from "./builtin/read-archive";
import { waitForTool } from "./builtin/wait-for";
import { inputSchemaProblem, toolNameProblem } from "./custom";
import type { ToolDefinition } from "./types";

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of many argument types
export type AnyTool = ToolDefinition<any>;

/** The core's built-in tools of docs/API.md §5, by name (the features' own come with them: `buildStaticTools`). */
export const BUILTIN_TOOLS: Readonly<Record<string, AnyTool>> = Object.freeze(
  Object.fromEntries(
    [
      listFilesTool,
      readFileTool,
      searchFilesTool,
      writeFileTool,
      editFileTool,
      deleteFileTool,
      httpFetchTool,
      readArchiveTool,
      waitForTool,
    ].map((t) => [t.name, t]),
  ),
);

let STATIC_TOOLS: Readonly<Record<string, AnyTool>> = BUILTIN_TOOLS;

/** The tools every session of this deployment has: the built-ins and the deployment's own (`createHighwater({ tools })`). */
export function staticTools(): Readonly<Record<string, AnyTool>> {
  return STATIC_TOOLS;
}

/** A feature as the registry sees it: its name and its tools. */
export type ToolingFeature = { readonly name: string; readonly tools?: readonly AnyTool[] };

/**
 * The registry of the core's built-ins, then each feature's tools, then `custom`, checked: each
 * feature name once, each tool name once, none with `__` (so none equals an MCP tool's
 * `<server>__<tool>`), each custom input with a JSON Schema form. Throws naming the first problem.
 */
export function buildStaticTools(
  custom: readonly AnyTool[],
  features: readonly ToolingFeature[] = [],
): Readonly<Record<string, AnyTool>> {
  const out: Record<string, AnyTool> = { ...BUILTIN_TOOLS };
  const names = new Set<string>();
  for (const [i, f] of features.entries()) {
    if (typeof f?.name !== "string" || !f.name) throw new TypeError(`features[${i}]: a feature needs a name`);
    if (names.has(f.name)) throw new TypeError(`features[${i}]: the feature "${f.name}" is listed twice`);
    names.add(f.name);
    for (const tool of f.tools ?? []) {
      if (Object.hasOwn(out, tool.name))
        throw new TypeError(`features[${i}] ("${f.name}"): the tool "${tool.name}" is defined twice`);
      out[tool.name] = tool;
    }
  }
  const builtin = { ...out };
  for (const [i, tool] of custom.entries()) {
    if (tool?.source !== "custom") throw new TypeError(`tools[${i}]: not a tool made by defineTool`);
    const problem = toolNameProblem(tool.name) ?? (tool.parameters ? null : inputSchemaProblem(tool.input));
    if (problem) throw new TypeError(`tools[${i}] (${JSON.stringify(String(tool.name))}): ${problem}`);
    if (Object.hasOwn(builtin, tool.name))
      throw new TypeError(`tools[${i}]: "${tool.name}" is the name of a built-in tool`);
    if (Object.hasOwn(out, tool.name)) throw new TypeError(`tools[${i}]: "${tool.name}" is defined twice`);
    out[tool.name] = tool;
  }
  return Object.freeze(out);
}

/** Makes `registry` the static tools of this isolate (one deployment per isolate). */
export function installStaticTools(registry: Readonly<Record<string, AnyTool>>): void {
  STATIC_TOOLS = registry;
}

/** The tool with this name, or undefined. */
export function getTool(name: string, registry: Readonly<Record<string, AnyTool>> = STATIC_TOOLS): AnyTool | undefined {
  return Object.hasOwn(registry, name) ? registry[name] : undefined;
}

/** The tools a session enables: all of `registry` when `names` is undefined, else those named (unknown names skipped), in registry order. */
export function enabledTools(names?: string[], registry: Readonly<Record<string, AnyTool>> = STATIC_TOOLS): AnyTool[] {
  const all = Object.values(registry);
  if (names === undefined) return all;
  const wanted = new Set(names);
  return all.filter((t) => wanted.has(t.name));
}

export type { ToolSpec } from "../contract/model";

import type { ToolSpec } from "../contract/model";

const specCache = new WeakMap<AnyTool, ToolSpec>();

/**
 * Tool definitions as the model sees them: the input schema as a plain JSON
 * object schema (the argument side, so defaults show and transforms don't throw).
 * Deterministic, so requests keep extending byte for byte and prompt caches hit.
 */
export function toolSpecs(tools: AnyTool[]): ToolSpec[] {
  return tools.map((tool) => {
    let spec = specCache.get(tool);
    if (!spec) {
      // JSON round trip: drop zod's non-enumerable extras and leave only plain data.
      const schema =
        tool.parameters ??
        (JSON.parse(JSON.stringify(z.toJSONSchema(tool.input, { io: "input" }))) as Record<string, unknown>);
      delete schema.$schema;
      spec = deepFreeze({ name: tool.name, description: tool.description, parameters: schema });
      specCache.set(tool, spec);
    }
    // Frozen, so one spec serves every request: a caller that tried to change it would throw
    // rather than change the next request's tools.
    return spec;
  });
}

/** `value` and everything it holds, frozen (specs are plain JSON data). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export type ToolArgIssue = { code: string; path: (string | number)[]; message: string } & Record<string, unknown>;

/** Validates a call's arguments against its tool's schema, applying defaults and transforms. */
export function parseToolArgs<I>(
  tool: ToolDefinition<I>,
  args: unknown,
): { ok: true; args: I } | { ok: false; issues: ToolArgIssue[] } {
  const result = tool.input.safeParse(args ?? {});
  if (result.success) return { ok: true, args: result.data };
  return { ok: false, issues: JSON.parse(JSON.stringify(result.error.issues)) as ToolArgIssue[] };
}

/** docs/API.md §2: calls matching a rule wait for a human decision. */
export type ApprovalRule = { tool: string; match?: Record<string, string[]> };

/**
 * True when some rule names this tool and, for every key k of its `match`,
 * String(args[k]) is one of match[k]. A rule without `match` covers every call.
 * `args` are the parsed arguments (after defaults and transforms).
 */
export function callNeedsApproval(rules: readonly ApprovalRule[], toolName: string, parsedArgs: unknown): boolean {
  const args = (parsedArgs !== null && typeof parsedArgs === "object" ? parsedArgs : {}) as Record<string, unknown>;
  return rules.some(
    (rule) =>
      rule.tool === toolName &&
      Object.entries(rule.match ?? {}).every(
        ([key, values]) =>
          Array.isArray(values) && values.includes(String(Object.hasOwn(args, key) ? args[key] : undefined)),
      ),
  );
}

/** An error message for the first rule that names a tool not in `enabledToolNames`, else null. */
export function validateApprovalRules(
  rules: readonly ApprovalRule[],
  enabledToolNames: readonly string[],
): string | null {
  const known = new Set(enabledToolNames);
  for (const [i, rule] of rules.entries()) {
    if (!known.has(rule.tool)) return `approvals[${i}].tool: unknown or disabled tool "${rule.tool}"`;
  }
  return null;
}
