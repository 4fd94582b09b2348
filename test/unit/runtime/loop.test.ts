/** The driver in Node: a slice plans from the log, carries out each step, and leaves the right alarm. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Event } from "../../../src/log";
import type { ModelPart } from "../../../src/model/types";
import { runSlice } from "../../../src/runtime/loop";
import type { ToolDefinition } from "../../../src/tools/types";
import { type FakeRuntime, fakeRuntime, scriptedProvider } from "../support/fake-runtime";
import { newLog } from "../support/fixtures";

const NOW = 1_000_000;
const hooks = { decided: () => undefined, verifyOnce: () => true };

function userTurn(text = "hi") {
  const ev = newLog();
  ev.created();
  ev.user(text);
  return ev.events;
}

const calls = (name: string, args: unknown): ModelPart[] => [
  { type: "tool-call", callId: "c1", name, args },
  { type: "finish", reason: "tool-calls" },
];
const says = (text: string): ModelPart[] => [
  { type: "text-delta", text },
  { type: "finish", reason: "stop" },
];

/** The log after the user's message, one line per event, for reading the story of a slice. */
function story(rt: FakeRuntime, from = 3): string[] {
  return rt.events.slice(from - 1).map((e: Event) => {
    const a = e.actions ?? {};
    if (a.modelRequest) return "modelRequest";
    if (a.toolDispatch) return "dispatch";
    if (a.permissionRequest) return "permissionRequest";
    if (a.turnClose) return `turnClose ${a.turnClose.reason}`;
    if (a.stateDelta?.modelAttempt) return "modelAttempt";
    const c = e.content;
    if (c?.type === "functionCall") return `call ${c.name}`;
    if (c?.type === "functionResponse") return `response ${c.status}`;
    if (c?.type === "text") return `${e.author}: ${c.text}`;
    if (c?.type === "error") return `error ${c.code}`;
    return `${e.author} ${Object.keys(a).join(",")}`;
  });
}

function countingTool(): ToolDefinition<unknown> & { runs: number } {
  const tool = {
    runs: 0,
    name: "lookup",
    description: "looks something up",
    input: z.object({ q: z.string() }) as z.ZodType<unknown>,
    effect: () => "read" as const,
    async run() {
      tool.runs++;
      return { status: "ok" as const, response: { found: 42 } };
    },
  };
  return tool;
}

describe("runSlice", () => {
  it("carries a turn from the user's message through a tool call to its close, then parks the loop", async () => {
    const tool = countingTool();
    const rt = fakeRuntime(userTurn(), {
      tools: [tool],
      provider: scriptedProvider(calls("lookup", { q: "x" }), says("it is 42")),
      now: () => NOW,
    });
    await runSlice(rt, hooks);
    expect(story(rt)).toEqual([
      "modelRequest",
      "call lookup",
      "dispatch",
      "response ok",
      "modelRequest",
      "model: it is 42",
      "turnClose completed",
    ]);
    expect(tool.runs).toBe(1);
    expect(rt.ends.at(-1)).toBe("parked");
  });

  it("a call that needs approval is asked for, not run; the loop parks", async () => {
    const tool = countingTool();
    const rt = fakeRuntime(userTurn(), {
      tools: [tool],
      provider: scriptedProvider(calls("lookup", { q: "x" })),
      needsApproval: (c) => c.name === "lookup",
      now: () => NOW,
    });
    await runSlice(rt, hooks);
    expect(story(rt)).toEqual(["modelRequest", "call lookup", "permissionRequest"]);
    expect(tool.runs).toBe(0);
    expect(rt.ends.at(-1)).toBe("parked");
    expect(rt.summary?.openTurn).not.toBeNull();
  });

  it("a failed attempt ends the slice with the next one due at the retry time, not at once", async () => {
    const rt = fakeRuntime(userTurn(), {
      provider: scriptedProvider([{ type: "text-delta", text: "cut" }]),
      now: () => NOW,
    });
    await runSlice(rt, hooks);
    expect(story(rt)).toEqual(["modelRequest", "modelAttempt"]);
    const recorded = rt.events.at(-1)!.actions!.stateDelta!.modelAttempt as { retryAt: string };
    const retryAt = Date.parse(recorded.retryAt);
    expect(retryAt).toBeGreaterThan(NOW);
    expect(rt.ends.at(-1)).toBe(retryAt);
  });

  it("a slice that spent its steps hands over to a fresh slice due now with the turn still open", async () => {
    const tool = countingTool();
    const rt = fakeRuntime(userTurn(), {
      tools: [tool],
      provider: scriptedProvider(calls("lookup", { q: "x" }), says("done")),
      policy: { sliceSteps: 2 },
      now: () => NOW,
    });
    await runSlice(rt, hooks);
    expect(story(rt)).toEqual(["modelRequest", "call lookup", "dispatch", "response ok"]);
    expect(rt.ends.at(-1)).toBe(NOW);
    // The next slice picks up where this one stopped.
    await runSlice(rt, hooks);
    expect(story(rt).slice(4)).toEqual(["modelRequest", "model: done", "turnClose completed"]);
  });

  it("a chain that fails verification stops the slice before anything is done", async () => {
    const rt = fakeRuntime(userTurn(), { provider: scriptedProvider(), now: () => NOW });
    await runSlice(rt, { decided: () => undefined, verifyOnce: () => false });
    expect(story(rt)).toEqual([]);
    expect(rt.ends).toEqual(["parked"]);
  });

  it("with no open turn, a slice parks and does nothing", async () => {
    const ev = newLog();
    ev.created();
    const rt = fakeRuntime(ev.events, { now: () => NOW });
    await runSlice(rt, hooks);
    expect(rt.events).toHaveLength(1);
    expect(rt.ends).toEqual(["parked"]);
  });
});
