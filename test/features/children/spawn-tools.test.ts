/** spawn_session `tools` (docs/API.md §6): a child may be given MCP tools, by their model-visible name, that its parent has. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { spawnSessionTool } from "../../../src/features/children/tool";
import { buildChildSpawn } from "../../../src/runtime/child-calls";
import type { RuntimeFeature } from "../../../src/runtime/feature";
import { parseToolArgs } from "../../../src/tools";
import type { ToolDefinition } from "../../../src/tools/types";
import { fakeRuntime } from "../../unit/support/fake-runtime";
import { newLog } from "../../unit/support/fixtures";

const mcpTool = (name: string): ToolDefinition<unknown> => ({
  name,
  source: "mcp:crm",
  description: "",
  input: z.record(z.string(), z.unknown()),
  effect: () => "read",
  run: async () => ({ status: "ok", response: null }),
});

function parent(options: Record<string, unknown> = {}, features: RuntimeFeature[] = []) {
  const ev = newLog();
  ev.created({ options });
  const delta = ev.events[0]!.actions!.stateDelta as { session: Record<string, unknown> };
  delta.session.directoryId = "d1";
  return fakeRuntime(ev.events, { tools: [mcpTool("crm__find")], features });
}

describe("spawn_session tools", () => {
  it("its arguments may name MCP tools; a name that is neither static nor <server>__<tool> is still refused", () => {
    expect(parseToolArgs(spawnSessionTool, { goal: "x", tools: ["crm__find", "read_file"] }).ok).toBe(true);
    expect(parseToolArgs(spawnSessionTool, { goal: "x", tools: ["nope"] }).ok).toBe(false);
  });

  it("the child gets an MCP tool its parent has; one the parent lacks is unknown_tool and makes no child", () => {
    const made = buildChildSpawn(parent(), { callId: "c1" }, { goal: "x", tools: ["crm__find", "read_file"] });
    expect(made).toMatchObject({ ok: true, spawn: { options: { tools: ["crm__find", "read_file"] } } });
    const refused = buildChildSpawn(parent(), { callId: "c1" }, { goal: "x", tools: ["crm__nope"] });
    expect(refused).toEqual({ ok: false, code: "unknown_tool", message: "tools: this session has no tool crm__nope" });
  });

  it("a child takes the core's options and those its features declare in inheritOptions, nothing else", () => {
    const options = { maxModelCallsPerTurn: 5, memory: "read", skills: ["tidy"], title: "parent" };
    const made = buildChildSpawn(
      parent(options, [{ name: "notes", inheritOptions: ["memory"] }]),
      { callId: "c1" },
      {
        goal: "x",
      },
    );
    expect(made.ok && made.spawn.options).toEqual({ maxModelCallsPerTurn: 5, memory: "read" });
    const none = buildChildSpawn(parent(options), { callId: "c1" }, { goal: "x" });
    expect(none.ok && none.spawn.options).toEqual({ maxModelCallsPerTurn: 5 });
  });
});
