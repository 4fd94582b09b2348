/**
 * The MCP client speaks 2026-07-28 to a server that supports it and 2025-11-25 to one that does
 * not (docs/API.md#mcp-protocol-versions); §8 holds for both: the toolset is recorded with the
 * revision each server was listed with, calls carry the dispatch's idempotency key, effects decide.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import type { ModelConfig } from "../../../src/model/types";
import { McpHub, parseMcpServers } from "../../../src/tools/mcp";
import { type Step, scriptedProvider, withSession } from "../../do/context-harness";
import { inWorkerMcp } from "../../fakes/mcp-in-worker";
import { mcp2Server } from "../../fakes/mcp2-server";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };

function hubOver(routes: Record<string, typeof fetch>) {
  const cfg = parseMcpServers(
    JSON.stringify(
      Object.keys(routes).map((name) => ({ name, url: `http://${name}.mcp.test/mcp`, trust: "annotations" })),
    ),
  );
  if (!cfg.ok) throw new Error(cfg.message);
  const route: typeof fetch = (input, init) => {
    const host = new URL(input instanceof Request ? input.url : String(input)).hostname.split(".")[0]!;
    return routes[host]!(input, init);
  };
  return () => new McpHub(cfg.servers, { fetch: route, secret: () => undefined, now: () => 0 });
}

const script = (steps: Step[]) => scriptedProvider({ next: (_r, n) => steps[n] ?? { kind: "answer", text: "done" } });
const toolsetOf = (events: Event[]) =>
  events.find((e) => e.actions?.stateDelta?.toolset)?.actions?.stateDelta?.toolset as {
    protocols?: Record<string, string>;
    tools: { name: string; effect: string }[];
  };

describe("MCP protocol revisions", () => {
  it("a 2.x server is called in 2026-07-28 and a v1 server in 2025-11-25, each recorded in the toolset", async () => {
    const modern = mcp2Server();
    const legacy = inWorkerMcp([{ name: "find", annotations: { readOnlyHint: true }, run: () => "found" }]);
    const provider = script([
      { kind: "call", name: "modern__lookup", args: { id: "7" } },
      { kind: "call", name: "legacy__find", args: {} },
      { kind: "answer", text: "both" },
    ]);
    await withSession(
      { provider, model: MODEL, mcp: hubOver({ modern: modern.fetch, legacy: legacy.fetch }) },
      async (h) => {
        await h.runTurn("look both up");
        const events = h.events();
        const toolset = toolsetOf(events);
        expect(toolset.protocols).toEqual({ modern: "2026-07-28", legacy: "2025-11-25" });
        expect(toolset.tools.filter((t) => t.name.includes("__"))).toEqual([
          expect.objectContaining({ name: "legacy__find", effect: "read" }),
          expect.objectContaining({ name: "modern__confirm", effect: "write" }),
          expect.objectContaining({ name: "modern__lookup", effect: "read" }),
        ]);
        const dispatches = events.flatMap((e) => (e.actions?.toolDispatch ? [e.actions.toolDispatch] : []));
        const responses = events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));
        expect(responses.map((r) => [r.name, r.status, r.response])).toEqual([
          ["modern__lookup", "ok", "order 7: shipped"],
          ["legacy__find", "ok", "found"],
        ]);
        // The 2026-07-28 call: stateless, in that revision, with the key in `_meta`.
        expect(modern.calls).toEqual([
          { tool: "lookup", key: dispatches[0]!.idempotencyKey, era: "modern", args: { id: "7" } },
        ]);
        expect(new Set(modern.versions)).toEqual(new Set(["2026-07-28"]));
        expect(legacy.calls).toEqual([{ tool: "find", key: dispatches[1]!.idempotencyKey, args: {} }]);
        expect(legacy.requests).toContain("initialize");
      },
    );
  });
});
