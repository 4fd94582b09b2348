/**
 * Remote calls (docs/design.md#remote-calls) as pure decisions over hand-written logs: what starts
 * and ends a remote wait, which notification or poll may release it, what a close leaves for a
 * late result, and what recovery does with a remote call with and without a recorded task.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import {
  buildRecoveryPlan,
  MAX_LATE,
  noticeTarget,
  projectRunState,
  reduceSummary,
  releases,
  remotePollDelay,
  type SessionSummary,
  sessionWait,
} from "../../../src/projections";
import { TranscriptFold, type TranscriptItem } from "../../../src/projections/transcript";
import { AlarmOwner, type AlarmPort } from "../../../src/runtime/alarm-owner";
import {
  lateResultDraft,
  remoteAnswer,
  remoteOutcomeDraft,
  remoteTaskDraft,
  timedOut,
} from "../../../src/runtime/remote-drafts";
import { type LogBuilder, newLog } from "../support/fixtures";
import { plan } from "../support/plan";

/** An alarm owner over a port the test moves: the summary it reads and its clock. */
function ownerOver(): { owner: AlarmOwner; port: { -readonly [K in keyof AlarmPort]: AlarmPort[K] } } {
  const port = {
    summary: null,
    features: [],
    deps: { sql: undefined as never, setAlarm: async () => {}, deleteAlarm: async () => {} },
    now: () => 0,
  } as { -readonly [K in keyof AlarmPort]: AlarmPort[K] };
  return { owner: new AlarmOwner(port), port };
}

const fold = (events: Event[]) => events.reduce<SessionSummary | null>(reduceSummary, null)!;

/** A turn whose model called `helper__send` (c1), dispatched with `effect`, and optionally its task recorded. */
function remoteCall(
  ev: LogBuilder,
  effect: "write" | "idempotent",
  task?: { taskId: string; waitId: string; notify?: string; deadline?: number },
) {
  ev.created();
  ev.user("ask the helper");
  ev.modelRequest();
  ev.modelCall("c1", "helper__send", { text: "hi" });
  ev.dispatch("c1", effect);
  if (task)
    ev.stateDelta(
      {
        remoteTask: {
          agent: "helper",
          callId: "c1",
          tool: "helper__send",
          taskId: task.taskId,
          waitId: task.waitId,
          notify: task.notify ?? "d1",
          ...(task.deadline !== undefined ? { deadline: task.deadline } : {}),
        },
      },
      "runtime",
    );
}

const remoteResult = (taskId: string, state = "completed") => ({ stateDelta: { remoteResult: { taskId, state } } });

describe("a remote call's wait", () => {
  it("starts when the task is recorded and ends with the response that carries its result", () => {
    const ev = newLog();
    remoteCall(ev, "write");
    expect(sessionWait(fold(ev.events))).toBeNull();
    ev.stateDelta(
      {
        remoteTask: {
          agent: "helper",
          callId: "c1",
          tool: "helper__send",
          taskId: "T1",
          waitId: "remote:c1:a",
          notify: "d1",
        },
      },
      "runtime",
    );
    const s = fold(ev.events);
    expect(sessionWait(s)).toMatchObject({ kind: "remote", waitId: "remote:c1:a" });
    expect(s.remote?.waiting).toEqual([
      {
        callId: "c1",
        tool: "helper__send",
        taskId: "T1",
        waitId: "remote:c1:a",
        notify: "d1",
        target: { agent: "helper" },
        turnId: "t1",
      },
    ]);
    ev.response("c1", "ok", { text: "done" }, remoteResult("T1"));
    const after = fold(ev.events);
    expect(sessionWait(after)).toBeNull();
    expect(after.remote).toEqual({ waiting: [], late: [] });
  });

  it.each([
    ["an ordinary user message", (ev: LogBuilder) => ev.user("are you done?")],
    ["an inbox event", (ev: LogBuilder) => ev.user("webhook fired", { source: "inbox:ci" })],
    ["another call's response", (ev: LogBuilder) => ev.response("c9", "ok")],
    ["a hidden state change", (ev: LogBuilder) => ev.stateDelta({ title: "x" })],
  ])("is not released by %s", (_what, add) => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    add(ev);
    expect(sessionWait(fold(ev.events))).toMatchObject({ kind: "remote", waitId: "remote:c1:a" });
  });

  it("only the recorded task and the current waitId release it", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    const r = fold(ev.events).remote;
    expect(releases(r, "remote:c1:a", "T1")).toBe(true);
    expect(releases(r, "remote:c1:a", "T2")).toBe(false); // a foreign task
    expect(releases(r, "remote:c0:z", "T1")).toBe(false); // a stale waitId
    expect(releases(undefined, "remote:c1:a", "T1")).toBe(false);
  });

  it("the planner waits and recovery leaves a call with a recorded task alone, whatever its effect", () => {
    for (const effect of ["write", "idempotent"] as const) {
      const ev = newLog();
      remoteCall(ev, effect, { taskId: "T1", waitId: "remote:c1:a" });
      const s = fold(ev.events);
      expect(plan(ev.events, { wait: { waitId: "remote:c1:a", kind: "remote" } })).toEqual({ kind: "wait" });
      const recovery = buildRecoveryPlan(ev.events, () => false, null);
      expect(recovery).toMatchObject({ rerun: [], interrupted: [], runNormally: [] });
      expect(s.openTurn?.wait?.kind).toBe("remote");
    }
  });

  it("a call with no recorded task follows its effect after a crash: write interrupted, idempotent sent again", () => {
    const write = newLog();
    remoteCall(write, "write");
    expect(buildRecoveryPlan(write.events, () => false, null).interrupted).toEqual(["c1"]);
    const idem = newLog();
    remoteCall(idem, "idempotent");
    expect(buildRecoveryPlan(idem.events, () => false, null).rerun).toEqual(["c1"]);
    expect(plan(idem.events)).toMatchObject({ kind: "recover" });
  });
});

describe("notifications and late results", () => {
  it("a token names its wait's task; another task, a forged or a spent token is refused", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a", notify: "digest-1" });
    const r = fold(ev.events).remote;
    expect(noticeTarget(r, "digest-1", "T1")).toMatchObject({ kind: "waiting", record: { taskId: "T1" } });
    expect(noticeTarget(r, "digest-1", null)).toMatchObject({ kind: "waiting" });
    expect(noticeTarget(r, "digest-1", "T2")).toEqual({ kind: "refused", reason: "other_task" });
    expect(noticeTarget(r, "forged", "T1")).toEqual({ kind: "refused", reason: "unknown_token" });
    ev.response("c1", "ok", { text: "done" }, remoteResult("T1"));
    // The result is recorded: the token is spent with its wait.
    expect(noticeTarget(fold(ev.events).remote, "digest-1", "T1")).toEqual({
      kind: "refused",
      reason: "unknown_token",
    });
  });

  it("a call a stop answered leaves its task late: one late result is taken, then the token is spent", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a", notify: "digest-1" });
    ev.response("c1", "interrupted", { reason: "stopped" });
    ev.turnClose("stopped");
    const s = fold(ev.events);
    expect(s.openTurn).toBeNull();
    expect(s.remote?.late.map((r) => r.taskId)).toEqual(["T1"]);
    expect(noticeTarget(s.remote, "digest-1", "T1")).toMatchObject({ kind: "late" });
    expect(releases(s.remote, "remote:c1:a", "T1")).toBe(false);
    const late = lateResultDraft(
      { callId: "c1", taskId: "T1" },
      { taskId: "T1", state: "completed", response: { text: "hi" } },
    );
    expect(late).toEqual({
      author: "runtime",
      modelVisibility: "hidden",
      actions: {
        stateDelta: { lateResult: { callId: "c1", taskId: "T1", state: "completed", response: { text: "hi" } } },
      },
    });
    ev.stateDelta(late.actions!.stateDelta!, "runtime");
    const after = fold(ev.events);
    expect(after.openTurn).toBeNull();
    expect(after.remote?.late).toEqual([]);
    expect(noticeTarget(after.remote, "digest-1", "T1")).toEqual({ kind: "refused", reason: "unknown_token" });
  });

  it(`remembers at most ${MAX_LATE} late tasks`, () => {
    const ev = newLog();
    ev.created();
    for (let i = 0; i < MAX_LATE + 3; i++) {
      ev.turn(`t${i}`);
      ev.user("go");
      ev.modelRequest();
      ev.modelCall(`c${i}`, "helper__send", { text: "x" });
      ev.dispatch(`c${i}`, "write");
      ev.stateDelta(
        { remoteTask: { agent: "helper", callId: `c${i}`, taskId: `T${i}`, waitId: `w${i}`, notify: `d${i}` } },
        "runtime",
      );
      ev.response(`c${i}`, "interrupted", { reason: "stopped" });
      ev.turnClose("stopped");
    }
    const late = fold(ev.events).remote!.late;
    expect(late).toHaveLength(MAX_LATE);
    expect(late[0]!.taskId).toBe("T3");
  });
});

describe("remote drafts", () => {
  it.each([
    ["completed", { status: "ok", response: { text: "hi" } }],
    ["failed", { status: "error", response: { code: "remote_failed", message: "why", taskId: "T1" } }],
    ["cancelled", { status: "error", response: { code: "remote_cancelled", message: "why", taskId: "T1" } }],
    ["rejected", { status: "error", response: { code: "remote_rejected", message: "why", taskId: "T1" } }],
  ] as const)("a %s task answers the call", (state, expected) => {
    const status = { taskId: "T1", state, response: { text: "hi" }, message: "why" };
    expect(remoteAnswer(status)).toEqual(expected);
  });

  it("a task still working or asking answers nothing yet", () => {
    expect(remoteAnswer({ taskId: "T1", state: "working" })).toBeNull();
    expect(remoteAnswer({ taskId: "T1", state: "input-required", message: "which?" })).toBeNull();
  });

  it("the outcome carries remoteResult, and toolRecovery when the send was made again", () => {
    const d = remoteOutcomeDraft(
      { callId: "c1", name: "helper__send" },
      { turnId: "t1", runId: "r1", invocationId: "inv1" },
      { taskId: "T1", rerun: true },
      { taskId: "T1", state: "completed", response: { text: "hi" } },
    )!;
    expect(d.content).toEqual({
      type: "functionResponse",
      callId: "c1",
      name: "helper__send",
      status: "ok",
      response: { text: "hi" },
    });
    expect(d.actions).toEqual({
      stateDelta: { remoteResult: { taskId: "T1", state: "completed" } },
      toolRecovery: { callId: "c1", strategy: "rerun" },
    });
    const rec = remoteTaskDraft(
      { turnId: "t1", runId: "r1" },
      { callId: "c1", tool: "helper__send", taskId: "T1", waitId: "w", notify: "d", target: { agent: "helper" } },
    );
    expect(rec).toMatchObject({
      author: "runtime",
      modelVisibility: "hidden",
      actions: {
        stateDelta: {
          remoteTask: { agent: "helper", callId: "c1", tool: "helper__send", taskId: "T1", waitId: "w", notify: "d" },
        },
      },
    });
  });
});

describe("a task's deadline (timeoutMs)", () => {
  it("is recorded with the task and read back; a task past it answers the call remote_timeout", () => {
    const rec = remoteTaskDraft(
      { turnId: "t1", runId: "r1" },
      { callId: "c1", tool: "s__t", taskId: "T1", waitId: "w", notify: null, target: { server: "s" }, deadline: 9_000 },
    );
    expect(rec.actions?.stateDelta?.remoteTask).toMatchObject({ server: "s", taskId: "T1", deadline: 9_000 });
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a", deadline: 9_000 });
    const record = fold(ev.events).remote!.waiting[0]!;
    expect(record.deadline).toBe(9_000);
    expect(remoteAnswer(timedOut(record))).toMatchObject({
      status: "error",
      response: { code: "remote_timeout", taskId: "T1" },
    });
  });

  it("a task without a deadline has none; a malformed one is ignored", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    expect(fold(ev.events).remote!.waiting[0]!.deadline).toBeUndefined();
    const bad = newLog();
    remoteCall(bad, "write", { taskId: "T1", waitId: "remote:c1:a", deadline: "soon" as never });
    expect(fold(bad.events).remote!.waiting[0]!.deadline).toBeUndefined();
  });

  it("the poll is due at the deadline at the latest, whatever the backoff", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a", deadline: 100_000 });
    const s = fold(ev.events);
    const { owner } = ownerOver();
    for (let i = 0; i < 12; i++) owner.remotePolled("remote:c1:a", 50_000);
    expect(owner.remoteDue(s, 50_000)).toBe(100_000);
    expect(owner.remoteDue(s, 120_000)).toBe(120_000);
  });
});

describe("polling backoff through the one alarm owner", () => {
  it("doubles from 1 s to at most 5 minutes", () => {
    expect([1, 2, 3, 4, 9, 10, 20].map(remotePollDelay)).toEqual([
      1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000,
    ]);
  });

  it("a new remote wait is due now, then after each poll's backoff; no remote wait, no due", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    const s = fold(ev.events);
    const { owner, port } = ownerOver();
    expect(owner.remoteDue(s, 5_000)).toBe(5_000);
    owner.remotePolled("remote:c1:a", 5_000);
    expect(owner.remoteDue(s, 5_000)).toBe(6_000);
    owner.remotePolled("remote:c1:a", 6_000);
    expect(owner.remoteDue(s, 6_000)).toBe(8_000);
    port.summary = s;
    port.now = () => 6_000;
    expect(owner.dues().remote).toBe(8_000);
    ev.response("c1", "ok", { text: "done" }, remoteResult("T1"));
    expect(owner.remoteDue(fold(ev.events), 9_000)).toBeNull();
  });

  it("after a restart the stored alarm stands for the next poll", async () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    const { owner, port } = ownerOver();
    port.summary = fold(ev.events);
    await owner.adopt(async () => 70_000);
    expect(owner.remoteDue(fold(ev.events), 10_000)).toBe(70_000);
  });
});

describe("a task that asks for input", () => {
  it("the wait says what is asked; the user's next message is its answer until it is sent", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    ev.stateDelta({ remoteInput: { callId: "c1", taskId: "T1", waitId: "remote:c1:a", ask: "which day?" } }, "runtime");
    let s = fold(ev.events);
    expect(sessionWait(s)).toMatchObject({ kind: "remote", waitId: "remote:c1:a", reason: "which day?" });
    expect(s.remote?.waiting[0]?.ask).toEqual({ text: "which day?", seq: ev.events.length });
    expect(s.remote?.waiting[0]?.answerSeq).toBeUndefined();
    const { owner } = ownerOver();
    owner.remotePolled("remote:c1:a", 1_000);
    expect(owner.remoteDue(s, 1_000)).toBe(2_000);
    const answer = ev.user("Tuesday");
    ev.user("and a projector");
    s = fold(ev.events);
    // The first message after the question is the answer; it is due at once, and still releases nothing.
    expect(s.remote?.waiting[0]?.answerSeq).toBe(answer.seq);
    expect(owner.remoteDue(s, 1_000)).toBe(1_000);
    expect(sessionWait(s)).toMatchObject({ kind: "remote", reason: "which day?" });
    owner.remotePolled("remote:c1:a", 1_000, answer.seq);
    expect(owner.remoteDue(s, 1_000)).toBe(3_000);
    ev.stateDelta({ remoteReply: { callId: "c1", taskId: "T1", waitId: "remote:c1:a", seq: answer.seq } }, "runtime");
    s = fold(ev.events);
    expect(s.remote?.waiting[0]?.ask).toBeUndefined();
    expect(s.remote?.waiting[0]?.answerSeq).toBeUndefined();
    expect(sessionWait(s)).toEqual({ kind: "remote", waitId: "remote:c1:a", runId: "r1" });
    expect(releases(s.remote, "remote:c1:a", "T1")).toBe(true);
  });

  it("an MCP task's own question is a pending input, no round of the call; its answer is due at once until polled", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    const q = { requestId: "inp_1", callId: "c1", server: "jobs", message: "Approve?", schema: { type: "object" } };
    ev.stateDelta({ inputRequested: { ...q, taskId: "T1" } }, "runtime");
    let s = fold(ev.events);
    expect(s.pendingInputs).toEqual([q]);
    expect(s.remote?.waiting[0]?.question).toEqual({ asked: { ...q, taskId: "T1" } });
    expect(projectRunState(ev.events).calls[0]?.input).toBeFalsy();
    const { owner } = ownerOver();
    owner.remotePolled("remote:c1:a", 1_000);
    expect(owner.remoteDue(s, 1_000)).toBe(2_000);
    const answer = ev.stateDelta({ inputAnswered: { requestId: "inp_1", callId: "c1", action: "accept" } }, "user");
    s = fold(ev.events);
    expect(s.pendingInputs).toEqual([]);
    expect(s.remote?.waiting[0]?.question).toMatchObject({ answer: { action: "accept" }, answerSeq: answer.seq });
    expect(owner.remoteDue(s, 1_000)).toBe(1_000);
    owner.remotePolled("remote:c1:a", 1_000, answer.seq);
    expect(owner.remoteDue(s, 1_000)).toBe(3_000);
    // Another task's question, or one of a call that is not waiting, is not this task's.
    ev.stateDelta({ inputRequested: { ...q, requestId: "inp_2", taskId: "T9" } }, "runtime");
    expect(fold(ev.events).remote?.waiting[0]?.question?.asked.requestId).toBe("inp_1");
  });

  it("a message before any question answers nothing", () => {
    const ev = newLog();
    remoteCall(ev, "write", { taskId: "T1", waitId: "remote:c1:a" });
    ev.user("hurry up");
    expect(fold(ev.events).remote?.waiting[0]?.answerSeq).toBeUndefined();
  });
});

describe("a remote call in the transcript", () => {
  const toolItem = (events: Event[]) => {
    const t = new TranscriptFold();
    for (const e of events) t.add(e);
    return t.items.find((i) => i.kind === "tool" && i.callId === "c1") as Extract<TranscriptItem, { kind: "tool" }>;
  };

  it("shows the task where it runs and its state: working, asking, working again, then its end", () => {
    const ev = newLog();
    remoteCall(ev, "write");
    expect(toolItem(ev.events).remote).toBeUndefined();
    ev.stateDelta(
      { remoteTask: { agent: "helper", callId: "c1", taskId: "T1", waitId: "remote:c1:a", notify: "d1" } },
      "runtime",
    );
    expect(toolItem(ev.events).remote).toEqual({ target: { agent: "helper" }, taskId: "T1", state: "working" });
    ev.stateDelta({ remoteInput: { callId: "c1", taskId: "T1", waitId: "remote:c1:a", ask: "which day?" } }, "runtime");
    expect(toolItem(ev.events).remote).toMatchObject({ state: "input-required", ask: "which day?" });
    ev.user("Tuesday");
    ev.stateDelta({ remoteReply: { callId: "c1", taskId: "T1" } }, "runtime");
    expect(toolItem(ev.events).remote).toEqual({ target: { agent: "helper" }, taskId: "T1", state: "working" });
    ev.response("c1", "error", { code: "remote_failed" }, remoteResult("T1", "failed"));
    const item = toolItem(ev.events);
    expect(item.state).toBe("error");
    expect(item.remote).toEqual({ target: { agent: "helper" }, taskId: "T1", state: "failed" });
  });

  it("a call that never started a task has no remote part", () => {
    const ev = newLog();
    remoteCall(ev, "write");
    ev.response("c1", "ok", { text: "direct" });
    expect(toolItem(ev.events).remote).toBeUndefined();
  });
});
