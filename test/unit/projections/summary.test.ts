import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import { deriveStatus, reduceSummary, type SessionSummary, toSession } from "../../../src/projections";
import { deepFreeze, type LogBuilder, MODEL_A, MODEL_B, newLog } from "../support/fixtures";

const fold = (events: Event[]) => events.reduce<SessionSummary | null>(reduceSummary, null);

function summaryOf(log: (ev: LogBuilder) => void): SessionSummary {
  const ev = newLog();
  ev.created({ options: { title: "My session", approvals: [{ tool: "delete_file" }] }, model: MODEL_A });
  log(ev);
  const s = fold(ev.events);
  if (!s) throw new Error("no summary");
  return s;
}

describe("reduceSummary", () => {
  it("nothing exists before the first event's stateDelta.session", () => {
    const ev = newLog();
    ev.user("orphan");
    expect(reduceSummary(null, ev.events[0]!)).toBeNull();
  });

  it("the first event creates the session from stateDelta.session", () => {
    const ev = newLog();
    const e = ev.created({
      options: { title: "T", system: "be brief" },
      model: MODEL_A,
      parentId: "p1",
      owner: "o".repeat(64),
    });
    expect(reduceSummary(null, e)).toEqual({
      id: "s1",
      title: "T",
      parentId: "p1",
      createdAt: e.at,
      updatedAt: e.at,
      options: { title: "T", system: "be brief" },
      model: MODEL_A,
      openTurn: null,
      lastClose: null,
      pendingApprovals: [],
      recoveryNotice: null,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      lastUsage: null,
      highWater: 1,
      headDigest: e.digest,
      owner: "o".repeat(64),
      children: {
        spawnedBy: null,
        awaiting: [],
        report: null,
        reported: false,
        goalTurnId: null,
        goalTurnSeq: null,
        resultSeq: null,
        stops: [],
      },
      directoryId: null,
    });
  });

  it("tracks highWater, headDigest and updatedAt of the last event", () => {
    let last: Event | undefined;
    const s = summaryOf((ev) => {
      ev.user("hi");
      last = ev.modelRequest();
    });
    expect(s).toMatchObject({ highWater: 3, headDigest: last!.digest, updatedAt: last!.at });
  });

  it("a user message opens a turn with the model at that time", () => {
    const s = summaryOf((ev) => ev.user("hi", { turnId: "t1", runId: "r1" }));
    expect(s.openTurn).toEqual({
      turnId: "t1",
      startSeq: 2,
      runId: "r1",
      model: MODEL_A,
      lastModelRequestSeq: null,
      lastModelRequestThrough: null,
      maxModelCalls: 1000,
    });
  });

  it("a second message joins the open turn (start and model unchanged)", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.stateDelta({ model: MODEL_B });
      ev.user("more");
    });
    expect(s.openTurn).toMatchObject({ turnId: "t1", startSeq: 2, model: MODEL_A });
  });

  it("PATCH model during an open turn changes `model` but not `openTurn.model`", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.modelRequest();
      ev.stateDelta({ model: MODEL_B });
    });
    expect(s.model).toEqual(MODEL_B);
    expect(s.openTurn?.model).toEqual(MODEL_A);
    expect(toSession(s, () => true).model).toEqual(MODEL_B);
  });

  it("the next turn opens with the patched model", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.stateDelta({ model: MODEL_B });
      ev.turnClose("completed");
      ev.turn("t2", "r2");
      ev.user("next");
    });
    expect(s.openTurn).toMatchObject({ turnId: "t2", runId: "r2", model: MODEL_B });
  });

  it("a recovery run of the open turn updates openTurn.runId, keeps its model", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.stateDelta({ model: MODEL_B });
      ev.run("r2");
      ev.recoveryNotice([], []);
    });
    // The notice event carries turnId t1 and runId r2.
    expect(s.openTurn).toMatchObject({ runId: "r2", model: MODEL_A });
  });

  it("PATCH title sets and clears the title", () => {
    expect(summaryOf((ev) => ev.stateDelta({ title: "Renamed" })).title).toBe("Renamed");
    expect(summaryOf((ev) => ev.stateDelta({ title: null })).title).toBeNull();
  });

  it("modelRequest records the request seq and its throughSeq on the open turn", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.modelRequest(2);
    });
    expect(s.openTurn).toMatchObject({ lastModelRequestSeq: 3, lastModelRequestThrough: 2 });
  });

  it("permissionRequest adds to pendingApprovals, permissionDecision removes it", () => {
    const req = { requestId: "apr_1", callId: "c1", tool: "delete_file", args: { path: "x" } };
    const ev = newLog();
    ev.created();
    ev.user("rm x");
    ev.modelRequest();
    ev.modelCall("c1", "delete_file", { path: "x" });
    ev.modelCall("c2", "delete_file", { path: "y" });
    ev.permissionRequest("c1", "apr_1", { path: "x" });
    expect(fold(ev.events)?.pendingApprovals).toEqual([req]);
    ev.permissionRequest("c2", "apr_2", { path: "y" });
    expect(fold(ev.events)?.pendingApprovals.map((p) => p.requestId)).toEqual(["apr_1", "apr_2"]);
    ev.permissionDecision("apr_1", "approve");
    expect(fold(ev.events)?.pendingApprovals.map((p) => p.requestId)).toEqual(["apr_2"]);
    ev.permissionDecision("apr_2", "reject");
    expect(fold(ev.events)?.pendingApprovals).toEqual([]);
  });

  it("tokenUsage sums usage and sets lastUsage from the last model request", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.modelRequest(2);
      ev.modelCall(
        "c1",
        "read_file",
        {},
        { tokenUsage: { inputTokens: 100, outputTokens: 10, cachedInputTokens: 80 } },
      );
      ev.dispatch("c1", "read");
      ev.response("c1", "ok");
      ev.modelRequest(6);
      ev.modelText("done", { tokenUsage: { inputTokens: 150, outputTokens: 5 }, endInvocation: true });
    });
    expect(s.usage).toEqual({ inputTokens: 250, outputTokens: 15, cachedInputTokens: 80 });
    expect(s.lastUsage).toEqual({ requestSeq: 7, throughSeq: 6, inputTokens: 150 });
  });

  it("a checkpoint's compaction usage counts in usage, not in lastUsage (docs/API.md §7.29)", () => {
    const s = summaryOf((ev) => {
      ev.user("hi");
      ev.modelRequest(2);
      ev.modelText("done", { tokenUsage: { inputTokens: 150, outputTokens: 5 }, endInvocation: true });
      ev.stateDelta(
        {
          checkpoint: {
            id: "ckpt_1",
            throughSeq: 3,
            sourceDigest: "d",
            prevId: null,
            summary: "…",
            usage: { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 10 },
          },
        },
        "runtime",
      );
    });
    expect(s.usage).toEqual({ inputTokens: 1150, outputTokens: 205, cachedInputTokens: 10 });
    expect(s.lastUsage).toEqual({ requestSeq: 3, throughSeq: 2, inputTokens: 150 });
  });

  it("turnClose clears openTurn and pendingApprovals and records the reason", () => {
    const s = summaryOf((ev) => {
      ev.user("rm");
      ev.modelRequest();
      ev.modelCall("c1", "delete_file", {});
      ev.permissionRequest("c1", "apr_1");
      ev.turnClose("stopped");
    });
    expect(s).toMatchObject({ openTurn: null, pendingApprovals: [], lastClose: "stopped" });
  });

  it("a recovery notice is set by its stateDelta and cleared when the next turn opens", () => {
    const withNotice = summaryOf((ev) => {
      ev.user("hi");
      ev.recoveryNotice(["c1"], ["c2"]);
    });
    expect(withNotice.recoveryNotice).toEqual({ atSeq: 3, rerun: ["c1"], needsReview: ["c2"], reissued: [] });
    const cleared = summaryOf((ev) => {
      ev.user("hi");
      ev.recoveryNotice(["c1"], ["c2"]);
      ev.turnClose("completed");
      ev.turn("t2");
      ev.user("again");
    });
    expect(cleared.recoveryNotice).toBeNull();
  });

  it("is pure: folding frozen events twice gives equal summaries", () => {
    const ev = newLog();
    ev.created({ options: { title: "x" } });
    ev.user("hi");
    ev.modelRequest();
    ev.modelCall("c1", "delete_file", {}, { tokenUsage: { inputTokens: 1, outputTokens: 1 } });
    ev.permissionRequest("c1");
    ev.stateDelta({ model: MODEL_B });
    const events = deepFreeze(ev.events);
    expect(fold(events)).toEqual(fold(events));
  });
});

describe("deriveStatus (docs/API.md §2 Status)", () => {
  const owns = () => true;
  const ownsNothing = () => false;
  const rows: { when: string; status: string; log: (ev: LogBuilder) => void; ownsRun: (runId: string) => boolean }[] = [
    { when: "no turn yet", status: "idle", log: () => {}, ownsRun: owns },
    {
      when: "last turn completed",
      status: "idle",
      log: (ev) => {
        ev.user("hi");
        ev.turnClose("completed");
      },
      ownsRun: owns,
    },
    {
      when: "last turn stopped (run not owned: still idle)",
      status: "idle",
      log: (ev) => {
        ev.user("hi");
        ev.turnClose("stopped");
      },
      ownsRun: ownsNothing,
    },
    {
      when: "last turn failed",
      status: "failed",
      log: (ev) => {
        ev.user("hi");
        ev.error("provider_error", "x");
        ev.turnClose("failed");
      },
      ownsRun: owns,
    },
    {
      when: "a failed turn followed by a completed one",
      status: "idle",
      log: (ev) => {
        ev.user("hi");
        ev.turnClose("failed");
        ev.turn("t2");
        ev.user("again");
        ev.turnClose("completed");
      },
      ownsRun: owns,
    },
    {
      when: "a new turn open after a failed one",
      status: "running",
      log: (ev) => {
        ev.user("hi");
        ev.turnClose("failed");
        ev.turn("t2");
        ev.user("again");
      },
      ownsRun: owns,
    },
    {
      when: "open turn with a pending approval",
      status: "waiting_approval",
      log: (ev) => {
        ev.user("rm");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file", {});
        ev.permissionRequest("c1");
      },
      ownsRun: owns,
    },
    {
      when: "open turn, run not owned by this incarnation (after restart)",
      status: "recovering",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      ownsRun: ownsNothing,
    },
    {
      when: "open turn, run owned",
      status: "running",
      log: (ev) => {
        ev.user("hi");
        ev.modelRequest();
      },
      ownsRun: (runId) => runId === "r1",
    },
  ];

  it.each(rows)("$when → $status", ({ status, log, ownsRun }) => {
    const s = summaryOf(log);
    expect(deriveStatus(s, ownsRun)).toBe(status);
    expect(toSession(s, ownsRun)).toMatchObject({ status, openTurn: s.openTurn !== null });
  });
});
