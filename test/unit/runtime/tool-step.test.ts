/** The tool step in Node: T1, run, T2, and what happens to an outcome nobody waits for any more. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Event } from "../../../src/log";
import { projectRunState } from "../../../src/projections";
import { runToolStep } from "../../../src/runtime/tool-step";
import type { ToolContext, ToolDefinition, ToolResult } from "../../../src/tools/types";
import { type FakeRuntime, fakeRuntime } from "../support/fake-runtime";
import { newLog } from "../support/fixtures";

const BASE = { turnId: "t1", runId: "r1" };

/** A tool whose run the test controls: it records what it saw, and answers when told to. */
function heldTool(name = "echo", effect: "read" | "write" = "write") {
  const seen: { events: Event[]; ctx: ToolContext; args: unknown }[] = [];
  let answer!: (r: ToolResult) => void;
  const answered = new Promise<ToolResult>((resolve) => {
    answer = resolve;
  });
  let rt: FakeRuntime | null = null;
  let start!: () => void;
  const started = new Promise<void>((resolve) => {
    start = resolve;
  });
  const tool: ToolDefinition<unknown> = {
    name,
    description: "a tool under test",
    input: z.object({ text: z.string() }) as z.ZodType<unknown>,
    effect: () => effect,
    async run(args, ctx) {
      seen.push({ events: [...(rt?.events ?? [])], ctx, args });
      start();
      return answered;
    },
  };
  return {
    tool,
    seen,
    answer,
    started,
    bind: (r: FakeRuntime) => {
      rt = r;
    },
  };
}

function openCall(args: unknown = { text: "hello" }, name = "echo") {
  const ev = newLog();
  ev.created();
  ev.user("do it");
  ev.modelRequest();
  ev.modelCall("c1", name, args);
  return ev;
}

function callOf(rt: FakeRuntime) {
  return projectRunState(rt.turnSuffix()).calls[0]!;
}

const responses = (rt: FakeRuntime) => rt.events.filter((e) => e.content?.type === "functionResponse");

describe("runToolStep", () => {
  it("commits the dispatch (T1) before the tool runs, and the response (T2) after, with the same key", async () => {
    const held = heldTool();
    const rt = fakeRuntime(openCall().events, { tools: [held.tool] });
    held.bind(rt);
    const step = runToolStep(rt, callOf(rt), BASE, false);
    await held.started;
    const before = held.seen[0]!;
    const dispatch = before.events.at(-1)!.actions?.toolDispatch;
    expect(dispatch).toMatchObject({ callId: "c1", tool: "echo", effect: "write" });
    expect(before.ctx.idempotencyKey).toBe(dispatch!.idempotencyKey);
    expect(responses(rt)).toEqual([]);
    held.answer({ status: "ok", response: { echoed: "hello" } });
    await step;
    const [t2] = responses(rt);
    expect(t2!.content).toMatchObject({
      type: "functionResponse",
      callId: "c1",
      status: "ok",
      response: { echoed: "hello" },
    });
    expect(t2!.seq).toBeGreaterThan(before.events.at(-1)!.seq);
    expect(rt.failpoints).toEqual(["F4", "F6", "F7"]);
  });

  it("an outcome that arrives after a stop answered the call is dropped, not committed twice", async () => {
    const held = heldTool();
    const ev = openCall();
    const rt = fakeRuntime(ev.events, { tools: [held.tool] });
    held.bind(rt);
    const step = runToolStep(rt, callOf(rt), BASE, false);
    await held.started;
    // The stop: the call is answered interrupted and the turn closes, while the tool still runs.
    rt.abort();
    rt.append([
      {
        author: "tool",
        modelVisibility: "visible",
        turnId: "t1",
        runId: "r1",
        content: { type: "functionResponse", callId: "c1", name: "echo", status: "interrupted", response: "stopped" },
      },
      {
        author: "runtime",
        modelVisibility: "hidden",
        turnId: "t1",
        runId: "r1",
        actions: { turnClose: { reason: "stopped" } },
      },
    ]);
    const head = rt.events.length;
    held.answer({ status: "ok", response: "late" });
    await step;
    expect(rt.events.length).toBe(head);
    expect(responses(rt).map((e) => e.content?.type === "functionResponse" && e.content.status)).toEqual([
      "interrupted",
    ]);
  });

  it("the tool's signal aborts on a stop", async () => {
    const held = heldTool();
    const rt = fakeRuntime(openCall().events, { tools: [held.tool] });
    held.bind(rt);
    const step = runToolStep(rt, callOf(rt), BASE, false);
    await held.started;
    const { signal } = held.seen[0]!.ctx;
    expect(signal.aborted).toBe(false);
    rt.abort();
    expect(signal.aborted).toBe(true);
    held.answer({ status: "ok", response: null });
    await step;
  });

  /** A held call of a tool with `timeoutMs`, started: its step, its signal and its answer. */
  async function startedCall(timeoutMs?: number) {
    const held = heldTool();
    const tool = timeoutMs === undefined ? held.tool : { ...held.tool, timeoutMs };
    const rt = fakeRuntime(openCall().events, { tools: [tool] });
    held.bind(rt);
    const step = runToolStep(rt, callOf(rt), BASE, false);
    await held.started;
    const finish = async () => {
      held.answer({ status: "ok", response: null });
      await step;
    };
    return { rt, signal: held.seen[0]!.ctx.signal, finish };
  }

  it("the call's deadline ends with the call: a finished call's signal never times out later", async () => {
    // A timer left behind would hold the session object in memory until it fired
    // (docs/design.md#memory-an-object-holds); here it would abort the finished call's signal.
    const { rt, signal, finish } = await startedCall(30);
    await finish();
    await new Promise((r) => setTimeout(r, 80));
    expect(signal.aborted).toBe(false);
    expect(responses(rt)[0]!.content).toMatchObject({ status: "ok" });
  });

  it("a finished call is let go: a stop after it does not reach its signal", async () => {
    const { rt, signal, finish } = await startedCall();
    await finish();
    rt.abort();
    expect(signal.aborted).toBe(false);
  });

  it("a call still running at its deadline sees its signal abort with a TimeoutError", async () => {
    const { signal, finish } = await startedCall(30);
    await new Promise((r) => setTimeout(r, 80));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe("TimeoutError");
    await finish();
  });

  it("arguments that fail the tool's schema get an invalid_arguments error; the tool never runs", async () => {
    const held = heldTool();
    const rt = fakeRuntime(openCall({ text: 42 }).events, { tools: [held.tool] });
    held.bind(rt);
    await runToolStep(rt, callOf(rt), BASE, false);
    expect(held.seen).toEqual([]);
    const [r] = responses(rt);
    expect(r!.content).toMatchObject({
      type: "functionResponse",
      callId: "c1",
      status: "error",
      response: { code: "invalid_arguments" },
    });
  });

  it("a call to a tool the session does not have is answered with an error naming it", async () => {
    const rt = fakeRuntime(openCall({}, "no_such_tool").events, { tools: [] });
    await runToolStep(rt, callOf(rt), BASE, false);
    const [r] = responses(rt);
    expect(r!.content).toMatchObject({ status: "error" });
    expect(JSON.stringify(r!.content)).toContain("no_such_tool");
  });

  it("a tool that throws is an error outcome the model reads, not a crashed slice", async () => {
    const tool: ToolDefinition<unknown> = {
      name: "echo",
      description: "throws",
      input: z.object({ text: z.string() }) as z.ZodType<unknown>,
      effect: () => "read",
      run: async () => {
        throw new Error("disk on fire");
      },
    };
    const rt = fakeRuntime(openCall().events, { tools: [tool] });
    expect(await runToolStep(rt, callOf(rt), BASE, false)).toBe(true);
    const [r] = responses(rt);
    expect(r!.content).toMatchObject({ status: "error" });
  });

  it("a re-run after recovery sends no second dispatch and marks its response as a rerun", async () => {
    const held = heldTool("echo", "read");
    const ev = openCall();
    ev.dispatch("c1", "read");
    const rt = fakeRuntime(ev.events, { tools: [held.tool] });
    held.bind(rt);
    const step = runToolStep(rt, callOf(rt), BASE, true);
    await held.started;
    // The key is the one recorded at dispatch.
    expect(held.seen[0]!.ctx.idempotencyKey).toBe("s1:c1");
    held.answer({ status: "ok", response: "again" });
    await step;
    expect(rt.events.filter((e) => e.actions?.toolDispatch)).toHaveLength(1);
    expect(responses(rt)[0]!.actions?.toolRecovery).toEqual({ callId: "c1", strategy: "rerun" });
  });
});
