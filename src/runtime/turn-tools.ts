/**
 * The tools of a turn (docs/API.md#mcp-servers): the static tools a session enables and the MCP
 * tools of the last recorded toolset. Before the first model call of a turn the MCP servers are
 * listed (from the object's 5-minute cache) and a changed set is recorded; the turn then keeps it
 * until it closes, so its requests extend byte for byte even when a server's list changes.
 */
import { z } from "zod";
import type { BlobStore, EventDraft } from "../log";
import type { CallState, RecordedToolset, SessionSummary } from "../projections";
import {
  callNeedsApproval,
  deepFreeze,
  enabledTools,
  getTool,
  parseToolArgs,
  staticTools,
  type ToolSpec,
  toolSpecs,
} from "../tools";
import type { McpHub, McpToolSpec } from "../tools/mcp/hub";
import { buildToolset, mcpToolsFor, serializeMcpSpecs } from "../tools/mcp/toolset";
import type { AnyTool } from "../tools/registry";
import type { ToolDefinition } from "../tools/types";

/** The static tools a session has: those its `tools` enable that its options make available (`memory`). */
function sessionStatics(s: SessionSummary) {
  return enabledTools(s.options.tools, staticTools()).filter((t) => t.availableFor?.(s.options) ?? true);
}

type Parsed = { sha256: string; specs: McpToolSpec[]; tools: Map<string, ToolDefinition<unknown>> };

/** MCP arguments go to the server as the model wrote them; the server checks them against its schema. */
const McpArgs = z.record(z.string(), z.unknown());

export class TurnTools {
  #parsed: Parsed | null = null;

  /** `shown`: the tools the features show at this summary (`context`), after the MCP tools. */
  constructor(
    private readonly blobs: BlobStore,
    private readonly hub: McpHub | undefined,
    private readonly shown: (s: SessionSummary) => readonly AnyTool[] = () => [],
  ) {}

  /** The specs the model is given: the enabled static tools, the toolset's MCP tools, then the features' shown tools. */
  specs(s: SessionSummary): ToolSpec[] {
    const statics = toolSpecs(sessionStatics(s));
    const mcp = this.#mcp(s.toolset).specs.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: deepFreeze(t.parameters),
    }));
    const enabled = s.options.tools;
    const shown = this.shown(s).filter((t) => !enabled || enabled.includes(t.name));
    return [...statics, ...mcp, ...toolSpecs(shown)];
  }

  /** Whether the session's approval rules hold this call for a human (its arguments parsed first). */
  needsApproval(s: SessionSummary, call: Pick<CallState, "name" | "args">): boolean {
    const rules = s.options.approvals ?? [];
    if (rules.length === 0) return false;
    const tool = this.lookup(s, call.name);
    if (!tool) return false;
    const parsed = parseToolArgs(tool, call.args);
    return parsed.ok && callNeedsApproval(rules, call.name, parsed.args);
  }

  /** The tool a call names, if the session has it in this turn. */
  lookup(s: SessionSummary, name: string): ToolDefinition<unknown> | null {
    const enabled = s.options.tools;
    if (enabled && !enabled.includes(name)) return null;
    const builtin = getTool(name, staticTools()) as ToolDefinition<unknown> | undefined;
    if (builtin) return (builtin.availableFor?.(s.options) ?? true) ? builtin : null;
    return this.#mcp(s.toolset).tools.get(name) ?? this.shown(s).find((t) => t.name === name) ?? null;
  }

  /** The unavailable server a name belongs to (`<server>__…`), if the turn's toolset left one out. */
  unavailableServerOf(s: SessionSummary, name: string): string | null {
    return s.toolset?.unavailable.find((server) => name.startsWith(`${server}__`)) ?? null;
  }

  /**
   * Lists the servers and returns the drafts that record a changed toolset (none when it is the
   * last recorded one, or when no server is configured and none ever was).
   */
  async refresh(s: SessionSummary, ids: { turnId: string; runId: string }): Promise<EventDraft[]> {
    if (!this.hub?.configured && !s.toolset) return [];
    const listing = this.hub?.configured ? await this.hub.list() : { tools: [], unavailable: [] };
    const mcp = mcpToolsFor(listing, s.options.tools, staticTools());
    const record = buildToolset(
      sessionStatics(s),
      mcp,
      listing.unavailable.map((u) => u.server),
      Object.fromEntries((listing.servers ?? []).map((l) => [l.server, l.protocolVersion])),
    );
    if (record.digest === s.toolset?.digest) return [];
    // Archive first: the event refers to the MCP specs by content address.
    const meta = mcp.length > 0 ? this.blobs.put(serializeMcpSpecs(mcp), "application/json") : null;
    return [
      {
        author: "runtime",
        modelVisibility: "hidden",
        turnId: ids.turnId,
        runId: ids.runId,
        actions: { stateDelta: { toolset: { ...record, mcp: meta ? { $blob: meta } : null } } },
      },
    ];
  }

  #mcp(toolset: RecordedToolset | undefined): Parsed {
    const ref = toolset?.mcp;
    if (!ref) return { sha256: "", specs: [], tools: new Map() };
    if (this.#parsed?.sha256 !== ref.sha256) {
      const text = this.blobs.readText(ref.sha256);
      if (text === null) throw new Error(`toolset blob ${ref.sha256} is missing`);
      const specs = JSON.parse(text) as McpToolSpec[];
      this.#parsed = { sha256: ref.sha256, specs, tools: new Map(specs.map((t) => [t.name, this.#define(t)])) };
    }
    return this.#parsed!;
  }

  #define(spec: McpToolSpec): ToolDefinition<unknown> {
    const hub = this.hub;
    const server = hub?.servers.find((s) => s.name === spec.server);
    return {
      name: spec.name,
      source: `mcp:${spec.server}`,
      description: spec.description,
      input: McpArgs,
      parameters: spec.parameters,
      // The hub answers `tool_timeout` itself after each attempt's `timeoutMs` (up to 3 attempts);
      // the step's own deadline only backs it up.
      ...(server ? { timeoutMs: server.timeoutMs * 3 + 1000 } : {}),
      effect: () => spec.effect,
      ...(spec.task && hub
        ? {
            remote: {
              poll: (taskId, ctx) => hub.pollTask(spec.server, taskId, ctx.signal, ctx.taskAnswer),
              cancel: (taskId, ctx) => hub.cancelTask(spec.server, taskId, ctx.signal),
            },
          }
        : {}),
      run: async (args, ctx) =>
        hub
          ? hub.call(spec, args, ctx.idempotencyKey, ctx.signal, {
              ...(ctx.input ? { resume: ctx.input } : {}),
              ...(ctx.ask ? { ask: ctx.ask } : {}),
            })
          : {
              status: "error",
              response: { code: "tool_unavailable", message: `MCP server ${spec.server} is not configured` },
            },
    };
  }
}
