/**
 * MCP tools in a session's turns (docs/API.md#mcp-servers): the toolset recorded before a turn's
 * first model call, kept until the turn closes, unavailable servers, calls and their outcomes.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../src/log";
import type { ModelConfig, ModelRequest } from "../../src/model/types";
import { requestDigest } from "../../src/runtime/drafts";
import { McpHub, parseMcpServers, type ToolsetEntry } from "../../src/tools/mcp";
import { type FakeTool, type InWorkerMcp, inWorkerMcp } from "../fakes/mcp-in-worker";
import { type Harness, lastResults, type Step, scriptedProvider, withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };

const LOOKUP: FakeTool = {
  name: "lookup",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  annotations: { readOnlyHint: true },
  run: (a) => ({
    content: [{ type: "text", text: `order ${a.id}: shipped` }],
    structuredContent: { id: a.id, status: "shipped" },
  }),
};
const SEND: FakeTool = { name: "send", run: () => "sent" };

type Servers = Record<string, { fake: InWorkerMcp; over?: Record<string, unknown> }>;

/** A hub over in-worker servers; `clock` moves the listing cache. */
function hubFactory(servers: Servers, clock: { now: number }) {
  const cfg = parseMcpServers(
    JSON.stringify(
      Object.entries(servers).map(([name, s]) => ({
        name,
        url: `http://${name}.mcp.test/mcp`,
        trust: "annotations",
        timeoutMs: 1000,
        ...s.over,
      })),
    ),
  );
  if (!cfg.ok) throw new Error(cfg.message);
  const route: typeof fetch = (input, init) => {
    const host = new URL(input instanceof Request ? input.url : String(input)).hostname.split(".")[0]!;
    return servers[host]!.fake.fetch(input, init);
  };
  return () =>
    new McpHub(cfg.servers, {
      fetch: route,
      secret: () => undefined,
      now: () => clock.now,
    });
}

const toolsets = (events: Event[]) =>
  events.flatMap((e) => {
    const t = e.actions?.stateDelta?.toolset as
      | { digest: string; tools: ToolsetEntry[]; unavailable: string[] }
      | undefined;
    return t ? [{ seq: e.seq, ...t }] : [];
  });
const names = (r: ModelRequest) => r.tools.map((t) => t.name).filter((n) => n.includes("__"));
const responses = (events: Event[]) =>
  events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));

function script(steps: Step[]) {
  return scriptedProvider({ next: (_r, n) => steps[n] ?? { kind: "answer", text: "done" } });
}

describe("the toolset of a turn", () => {
  it("is recorded before the first model call, given to the model, and not recorded again when unchanged", async () => {
    const crm = inWorkerMcp([LOOKUP, SEND]);
    const clock = { now: 0 };
    const provider = script([{ kind: "answer", text: "hi" }]);
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, clock) }, async (h) => {
      await h.runTurn("first");
      const events = h.events();
      const [set, ...more] = toolsets(events);
      expect(more).toEqual([]);
      const firstRequest = events.find((e) => e.actions?.modelRequest)!;
      expect(set!.seq).toBeLessThan(firstRequest.seq);
      expect(set!.unavailable).toEqual([]);
      expect(set!.tools.filter((t) => t.source.startsWith("mcp:"))).toEqual([
        { name: "crm__lookup", source: "mcp:crm", effect: "read", schemaDigest: expect.any(String) },
        { name: "crm__send", source: "mcp:crm", effect: "write", schemaDigest: expect.any(String) },
      ]);
      const sent = provider.recorded[0]!.request;
      expect(sent.tools.find((t) => t.name === "crm__lookup")).toEqual({
        name: "crm__lookup",
        description: "the lookup tool",
        parameters: LOOKUP.inputSchema,
      });
      // The cache expired and the server lists the same: the next turn records nothing new.
      clock.now += 6 * 60 * 1000;
      await h.runTurn("second");
      expect(toolsets(h.events())).toHaveLength(1);
      expect(crm.requests.filter((m) => m === "tools/list")).toHaveLength(2);
    });
  });

  it("a server whose list changes mid-turn does not change the turn's request tools; the next turn gets it", async () => {
    const crm = inWorkerMcp([LOOKUP]);
    const clock = { now: 0 };
    const provider = script([
      { kind: "call", name: "crm__lookup", args: { id: "1" } },
      { kind: "call", name: "crm__lookup", args: { id: "2" } },
      { kind: "answer", text: "both shipped" },
    ]);
    const extra: FakeTool = { name: "cancel", description: "appeared mid-turn" };
    const original = LOOKUP.run;
    LOOKUP.run = (a) => {
      // The server gains a tool while the turn runs, and the cache is long expired.
      if (a.id === "1") crm.tools = [LOOKUP, extra];
      clock.now += 10 * 60 * 1000;
      return `order ${a.id}: shipped`;
    };
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, clock) }, async (h) => {
      await h.runTurn("check two orders");
      const turn = provider.recorded.map((r) => r.request);
      expect(turn).toHaveLength(3);
      for (const r of turn) expect(names(r)).toEqual(["crm__lookup"]);
      // Requests extend byte for byte: each one's tools are exactly the first one's.
      for (const r of turn) expect(JSON.stringify(r.tools)).toBe(JSON.stringify(turn[0]!.tools));
      expect(toolsets(h.events())).toHaveLength(1);

      await h.runTurn("again");
      expect(names(provider.recorded.at(-1)!.request)).toEqual(["crm__lookup", "crm__cancel"]);
      expect(toolsets(h.events())).toHaveLength(2);
    });
    LOOKUP.run = original;
  });

  it("after a restart mid-turn the request is rebuilt from the log with the same digest, with no server reachable", async () => {
    const crm = inWorkerMcp([LOOKUP]);
    const provider = script([{ kind: "answer", text: "ok" }]);
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) }, async (h) => {
      await h.runTurn("hello");
      const recorded = h.events().findLast((e) => e.actions?.modelRequest)!.actions!.modelRequest!;
      crm.down = true;
      const again = h.reopen();
      const input = again.contextInput(MODEL);
      expect(input.tools.map((t) => t.name)).toContain("crm__lookup");
      const ctx = again.buildContext(MODEL);
      // The same tool bytes as when the call was recorded (the messages grew by the answer since).
      expect(JSON.stringify(ctx.tools)).toBe(JSON.stringify(provider.recorded[0]!.request.tools));
      expect(requestDigest(provider.recorded[0]!.request)).toBe(recorded.requestDigest);
    });
  });

  it("a server that cannot be listed is unavailable, the turn goes on, and its tool answers tool_unavailable", async () => {
    const crm = inWorkerMcp([LOOKUP]);
    const down = inWorkerMcp([SEND]);
    down.down = true;
    const provider = script([
      { kind: "call", name: "ops__send", args: {} },
      { kind: "call", name: "crm__lookup", args: { id: "9" } },
      { kind: "answer", text: "done" },
    ]);
    await withSession(
      { provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm }, ops: { fake: down } }, { now: 0 }) },
      async (h: Harness) => {
        await h.runTurn("go");
        const events = h.events();
        expect(toolsets(events)[0]!.unavailable).toEqual(["ops"]);
        expect(names(provider.recorded[0]!.request)).toEqual(["crm__lookup"]);
        const [unavailable, lookup] = responses(events);
        expect(unavailable).toMatchObject({
          name: "ops__send",
          status: "error",
          response: { code: "tool_unavailable" },
        });
        expect(lookup).toMatchObject({
          name: "crm__lookup",
          status: "ok",
          response: { text: "order 9: shipped", structured: { id: "9", status: "shipped" } },
        });
        expect(events.at(-1)!.actions?.turnClose?.reason).toBe("completed");
        expect(down.calls).toEqual([]);
      },
    );
  });
});

describe("MCP calls in a turn", () => {
  it("carry the dispatch's idempotency key; the dispatch records the tool's effect", async () => {
    const crm = inWorkerMcp([LOOKUP, SEND]);
    const provider = script([
      { kind: "call", name: "crm__send", args: { to: "a", text: "hi" } },
      { kind: "answer", text: "sent" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) }, async (h) => {
      await h.runTurn("send it");
      const dispatch = h.events().find((e) => e.actions?.toolDispatch)!.actions!.toolDispatch!;
      expect(dispatch.effect).toBe("write");
      expect(crm.calls).toEqual([{ tool: "send", key: dispatch.idempotencyKey, args: { to: "a", text: "hi" } }]);
      expect(lastResults(provider.recorded[1]!.request)[0]).toMatchObject({ status: "ok", output: "sent" });
    });
  });

  it("a server that fails answers tool_failed and the turn completes", async () => {
    const crm = inWorkerMcp([LOOKUP, SEND]);
    const provider = script([
      { kind: "call", name: "crm__send", args: {} },
      { kind: "answer", text: "could not" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) }, async (h) => {
      const realFetch = crm.fetch;
      crm.fetch = (async (i: RequestInfo | URL, init?: RequestInit) => {
        // The listing succeeds; the call gets an HTTP 500.
        if (typeof init?.body === "string" && init.body.includes('"tools/call"'))
          return new Response("boom", { status: 500 });
        return realFetch(i, init);
      }) as typeof fetch;
      await h.runTurn("send");
      const [r] = responses(h.events());
      expect(r).toMatchObject({ status: "error", response: { code: "tool_failed" } });
      expect(h.events().at(-1)!.actions?.turnClose?.reason).toBe("completed");
    });
  });
});

describe("approval rules on MCP tools", () => {
  it("a call matching a rule waits for a decision bound to its arguments; nothing reaches the server before", async () => {
    const crm = inWorkerMcp([LOOKUP, SEND]);
    const provider = script([
      { kind: "call", name: "crm__send", args: { to: "ceo", text: "hi" } },
      { kind: "answer", text: "sent" },
    ]);
    const options = { approvals: [{ tool: "crm__send", match: { to: ["ceo"] } }] };
    await withSession(
      { provider, model: MODEL, options, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) },
      async (h) => {
        await h.runtime.postMessage({ text: "tell the ceo", source: "http" });
        for (let i = 0; i < 5 && h.runtime.session().pendingApprovals.length === 0; i++) await h.runtime.alarm();
        const [pending] = h.runtime.session().pendingApprovals;
        expect(pending).toMatchObject({ tool: "crm__send", args: { to: "ceo", text: "hi" } });
        expect(crm.calls).toEqual([]);
        await h.runtime.decide({ requestId: pending!.requestId, decision: "approve", argsDigest: pending!.argsDigest });
        for (let i = 0; i < 10 && h.runtime.summary?.openTurn; i++) await h.runtime.alarm();
        expect(crm.calls.map((c) => c.tool)).toEqual(["send"]);
        expect(h.events().at(-1)!.actions?.turnClose?.reason).toBe("completed");
      },
    );
  });
});

describe("MCP results and stops", () => {
  it("a large result is kept whole in the log and offloaded from the model's context", async () => {
    const big = "row,".repeat(25_000);
    const crm = inWorkerMcp([{ name: "export", annotations: { readOnlyHint: true }, run: () => big }]);
    const provider = script([
      { kind: "call", name: "crm__export", args: {} },
      { kind: "answer", text: "exported" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) }, async (h) => {
      await h.runTurn("export");
      const [r] = responses(h.events());
      expect(r).toMatchObject({ status: "ok", response: big });
      const seen = lastResults(provider.recorded[1]!.request)[0]!.output as Record<string, unknown>;
      expect(seen).toMatchObject({ offloaded: true, tool: "crm__export", bytes: big.length });
    });
  });

  it("a stop aborts a call in flight: the turn closes at once with the call interrupted", async () => {
    let release: () => void = () => {};
    const crm = inWorkerMcp([
      {
        name: "slow",
        annotations: { readOnlyHint: true },
        run: () => new Promise<string>((r) => (release = () => r("late"))),
      },
    ]);
    const provider = script([{ kind: "call", name: "crm__slow", args: {} }]);
    // A 10-minute timeout: only the stop can end this call within the test.
    const mcp = hubFactory({ crm: { fake: crm, over: { timeoutMs: 600_000 } } }, { now: 0 });
    await withSession({ provider, model: MODEL, mcp }, async (h) => {
      await h.runtime.postMessage({ text: "go", source: "http" });
      const slice = h.runtime.alarm();
      for (let i = 0; i < 200 && crm.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(crm.calls).toHaveLength(1);
      h.runtime.stop();
      await slice;
      release();
      const events = h.events();
      expect(responses(events)).toMatchObject([{ name: "crm__slow", status: "interrupted" }]);
      expect(events.at(-1)!.actions?.turnClose?.reason).toBe("stopped");
    });
  });
});

describe("a session's tools option", () => {
  it("names MCP tools like built-ins: only those are given, and another is refused", async () => {
    const crm = inWorkerMcp([LOOKUP, SEND]);
    const provider = script([
      { kind: "call", name: "crm__send", args: {} },
      { kind: "answer", text: "ok" },
    ]);
    const options = { tools: ["read_file", "crm__lookup"] };
    await withSession(
      { provider, model: MODEL, options, mcp: hubFactory({ crm: { fake: crm } }, { now: 0 }) },
      async (h) => {
        await h.runTurn("send");
        expect(provider.recorded[0]!.request.tools.map((t) => t.name)).toEqual(["read_file", "crm__lookup"]);
        expect(responses(h.events())).toMatchObject([
          { name: "crm__send", status: "error", response: { code: "invalid_arguments" } },
        ]);
        expect(crm.calls).toEqual([]);
      },
    );
  });
});
