import { describe, expect, it } from "vitest";
import { describeRecovery, type RecoveryLists } from "../../../src/contract/transcript";
import type { Event } from "../../../src/log";
import {
  buildTranscript,
  pageTranscript,
  reduceSummary,
  type SessionSummary,
  type TranscriptItem,
} from "../../../src/projections";
import { deepFreeze, type LogBuilder, newLog } from "../support/fixtures";

type ToolItem = Extract<TranscriptItem, { kind: "tool" }>;

function toolItem(events: Event[], callId: string): ToolItem {
  const item = buildTranscript(events).find((i): i is ToolItem => i.kind === "tool" && i.callId === callId);
  if (!item) throw new Error(`no tool item for ${callId}`);
  return item;
}

/**
 * Appends events one at a time and records the tool item's state after each: what a user
 * watching the console sees the call go through.
 */
function statesOf(steps: ((ev: LogBuilder) => unknown)[]): string[] {
  const ev = newLog();
  ev.user("go");
  ev.modelRequest();
  ev.modelCall("c1", "write_file", { path: "a", content: "b" });
  const states = [toolItem(ev.events, "c1").state];
  for (const s of steps) {
    s(ev);
    states.push(toolItem(ev.events, "c1").state);
  }
  return states;
}

describe("buildTranscript: tool item state", () => {
  const rows: { name: string; steps: ((ev: LogBuilder) => unknown)[]; states: string[]; recovery?: string }[] = [
    {
      name: "plain call: pending → running → ok",
      steps: [(ev) => ev.dispatch("c1", "write"), (ev) => ev.response("c1", "ok")],
      states: ["pending", "running", "ok"],
    },
    {
      name: "tool error: pending → running → error",
      steps: [(ev) => ev.dispatch("c1", "write"), (ev) => ev.response("c1", "error")],
      states: ["pending", "running", "error"],
    },
    {
      name: "approved: pending → waiting_approval → pending → running → ok",
      steps: [
        (ev) => ev.permissionRequest("c1", "apr_1"),
        (ev) => ev.permissionDecision("apr_1", "approve"),
        (ev) => ev.dispatch("c1", "write"),
        (ev) => ev.response("c1", "ok"),
      ],
      states: ["pending", "waiting_approval", "pending", "running", "ok"],
    },
    {
      name: "rejected by the user: waiting_approval until the rejected response",
      steps: [
        (ev) => ev.permissionRequest("c1", "apr_1"),
        (ev) => ev.permissionDecision("apr_1", "reject", "no"),
        (ev) => ev.response("c1", "rejected", { reason: "no" }),
      ],
      states: ["pending", "waiting_approval", "waiting_approval", "rejected"],
    },
    {
      name: "stopped before dispatch: pending → rejected",
      steps: [(ev) => ev.response("c1", "rejected", { reason: "stopped" }), (ev) => ev.turnClose("stopped")],
      states: ["pending", "rejected", "rejected"],
    },
    {
      name: "write interrupted by a restart: running → interrupted, with recovery",
      steps: [
        (ev) => ev.dispatch("c1", "write"),
        (ev) => {
          ev.run("r2");
          return ev.recoveryNotice([], ["c1"]);
        },
        (ev) =>
          ev.response(
            "c1",
            "interrupted",
            { interrupted: true },
            { toolRecovery: { callId: "c1", strategy: "interrupted" } },
          ),
      ],
      states: ["pending", "running", "running", "interrupted"],
      recovery: "interrupted",
    },
    {
      name: "read re-run after a restart: running → ok, with recovery rerun",
      steps: [
        (ev) => ev.dispatch("c1", "read"),
        (ev) => ev.recoveryNotice(["c1"], []),
        (ev) => ev.response("c1", "ok", "A", { toolRecovery: { callId: "c1", strategy: "rerun" } }),
      ],
      states: ["pending", "running", "running", "ok"],
      recovery: "rerun",
    },
  ];

  it.each(rows)("$name", ({ steps, states, recovery }) => {
    expect(statesOf(steps)).toEqual(states);
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "write_file", { path: "a", content: "b" });
    for (const s of steps) s(ev);
    expect(toolItem(ev.events, "c1").recovery).toBe(recovery);
  });

  it("the tool item carries its call and, once answered, the response", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    const call = ev.modelCall("c1", "read_file", { path: "notes.md" });
    ev.permissionRequest("c1", "apr_9");
    expect(toolItem(ev.events, "c1")).toEqual({
      kind: "tool",
      seq: call.seq,
      callId: "c1",
      tool: "read_file",
      args: { path: "notes.md" },
      state: "waiting_approval",
      requestId: "apr_9",
    });
    ev.permissionDecision("apr_9", "approve");
    ev.dispatch("c1", "read");
    ev.response("c1", "ok", { content: "# notes" });
    expect(toolItem(ev.events, "c1")).toMatchObject({ state: "ok", response: { content: "# notes" } });
  });

  it("a decision for another request leaves the call waiting", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "delete_file", {});
    ev.modelCall("c2", "delete_file", {});
    ev.permissionRequest("c1", "apr_1");
    ev.permissionRequest("c2", "apr_2");
    ev.permissionDecision("apr_2", "approve");
    expect(toolItem(ev.events, "c1").state).toBe("waiting_approval");
    expect(toolItem(ev.events, "c2").state).toBe("pending");
  });
});

describe("buildTranscript: items", () => {
  it("a whole turn: messages, thinking, tool, recovery notice, turn end — bookkeeping folded away", () => {
    const ev = newLog();
    ev.created();
    ev.user("hello", { source: "ws" });
    ev.modelRequest();
    ev.modelThinking("pondering", "sig");
    ev.modelText("Reading it.");
    ev.modelCall("c1", "read_file", { path: "a" }, { tokenUsage: { inputTokens: 5, outputTokens: 5 } });
    ev.dispatch("c1", "read");
    ev.run("r2");
    ev.recoveryNotice(["c1"], []);
    ev.response("c1", "ok", "A", { toolRecovery: { callId: "c1", strategy: "rerun" } });
    ev.modelRequest();
    ev.modelText("Done.", { endInvocation: true });
    ev.turnClose("completed");
    const items = buildTranscript(deepFreeze(ev.events));
    expect(items).toEqual([
      { kind: "message", seq: 2, role: "user", text: "hello", source: "ws", turnId: "t1" },
      { kind: "thinking", seq: 4, text: "pondering" },
      { kind: "message", seq: 5, role: "assistant", text: "Reading it.", turnId: "t1" },
      {
        kind: "tool",
        seq: 6,
        callId: "c1",
        tool: "read_file",
        args: { path: "a" },
        state: "ok",
        response: "A",
        recovery: "rerun",
      },
      { kind: "recovery", seq: 8, rerun: ["c1"], needsReview: [], reissued: [] },
      { kind: "message", seq: 11, role: "assistant", text: "Done.", turnId: "t1" },
      { kind: "turn", seq: 12, turnId: "t1", reason: "completed" },
    ]);
  });

  it("recovery notices list what was re-run and what needs review", () => {
    const ev = newLog();
    ev.user("go");
    ev.recoveryNotice(["c1", "c3"], ["c2"]);
    expect(buildTranscript(ev.events)).toContainEqual({
      kind: "recovery",
      seq: 2,
      rerun: ["c1", "c3"],
      needsReview: ["c2"],
      reissued: [],
    });
  });

  const closes: { reason: "completed" | "stopped" | "failed"; extra: (ev: LogBuilder) => void; items: unknown[] }[] = [
    { reason: "completed", extra: () => {}, items: [] },
    { reason: "stopped", extra: () => {}, items: [] },
    {
      reason: "failed",
      extra: (ev) => ev.error("provider_error", "model call failed after 5 attempt(s)"),
      items: [{ kind: "error", seq: 3, code: "provider_error", message: "model call failed after 5 attempt(s)" }],
    },
  ];

  it.each(closes)("a turn closed $reason ends with a turn item", ({ reason, extra, items }) => {
    const ev = newLog();
    ev.user("hi");
    ev.modelRequest();
    extra(ev);
    const close = ev.turnClose(reason);
    const all = buildTranscript(ev.events);
    expect(all.slice(1, -1)).toEqual(items);
    expect(all[all.length - 1]).toEqual({ kind: "turn", seq: close.seq, turnId: "t1", reason });
  });

  it("two turns give two turn items with their own turn ids", () => {
    const ev = newLog();
    ev.user("one");
    ev.turnClose("completed");
    ev.turn("t2");
    ev.user("two");
    ev.turnClose("stopped");
    const turns = buildTranscript(ev.events).filter((i) => i.kind === "turn");
    expect(turns).toEqual([
      { kind: "turn", seq: 2, turnId: "t1", reason: "completed" },
      { kind: "turn", seq: 4, turnId: "t2", reason: "stopped" },
    ]);
  });

  it("is deterministic over frozen input: a dispatched call with no outcome shows running", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", {});
    ev.dispatch("c1", "read");
    const events = deepFreeze(ev.events);
    const a = buildTranscript(events);
    const b = buildTranscript(events);
    expect(b).toEqual(a);
    expect(toolItem(events, "c1").state).toBe("running");
  });
});

describe("pageTranscript (docs/API.md §7.20)", () => {
  /** Pages a log the way the object does: the events after the cursor, `later` from the whole log. */
  function pages(events: Event[], limit: number, window: number) {
    const out: TranscriptItem[][] = [];
    let after = 0;
    for (let guard = 0; guard < 100; guard++) {
      const read = events.filter((e) => e.seq > after).slice(0, window);
      const atHead = read.at(-1)?.seq === events.at(-1)?.seq;
      const page = pageTranscript(read, limit, atHead, (callIds, through) =>
        events.filter(
          (e) =>
            e.seq > through &&
            (callIds.some((id) => JSON.stringify(e).includes(`"${id}"`)) || e.actions?.permissionDecision),
        ),
      );
      out.push(page.items);
      if (page.next === undefined) return out;
      expect(page.next).toBeGreaterThan(after);
      after = page.next;
    }
    throw new Error("pages never ended");
  }

  function log() {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "write_file", { path: "a", content: "b" });
    ev.permissionRequest("c1");
    ev.user("meanwhile");
    ev.user("and again");
    ev.permissionDecision("apr_c1", "approve");
    ev.dispatch("c1", "write");
    ev.response("c1", "ok");
    ev.modelText("done");
    ev.turnClose("completed");
    return ev.events;
  }

  for (const [limit, window] of [
    [1, 100],
    [2, 100],
    [3, 3],
    [200, 2],
    [200, 100],
  ] as const)
    it(`joins to the whole transcript: limit ${limit}, ${window} events read per page`, () => {
      const events = deepFreeze(log());
      const all = pages(events, limit, window);
      for (const p of all) expect(p.length).toBeLessThanOrEqual(limit);
      // A call cut from its approval, dispatch and response by a page boundary shows its final state.
      expect(all.flat()).toEqual(buildTranscript(events));
    });
});

describe("the recovery notice: one notice, one account (docs/API.md §7.11)", () => {
  it("after a kill mid-call the transcript line and the banner say the same three lists", () => {
    const ev = newLog();
    ev.created();
    ev.user("go");
    ev.modelRequest();
    // A kill while the model streamed: the takeover re-issues the call and records nothing else.
    ev.run("r2");
    ev.recoveryNotice([], [], ["inv_1"]);
    const events = deepFreeze(ev.events);
    const line = buildTranscript(events).find((i) => i.kind === "recovery");
    const banner = events.reduce<SessionSummary | null>(reduceSummary, null)!.recoveryNotice!;
    expect(line).toMatchObject({ rerun: [], needsReview: [], reissued: ["inv_1"] });
    expect(describeRecovery(line as RecoveryLists)).toBe(describeRecovery(banner));
    expect(describeRecovery(banner)).toBe(
      "Recovered after a restart: 0 call(s) re-run, 0 need review, 1 model call(s) issued again.",
    );
  });
});
