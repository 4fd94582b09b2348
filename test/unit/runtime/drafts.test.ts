/** The runtime's draft builders and attempt rules, table-tested with hand-written logs. */
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { toProviderError } from "../../../src/model/convert";
import { ProviderError } from "../../../src/model/types";
import { buildRecoveryPlan, type CallState, INTERRUPTED_DIRECTIVE, projectRunState } from "../../../src/projections";
import { failureDrafts, stopDrafts } from "../../../src/runtime/close-drafts";
import { answerDrafts, CONTINUE_TEXT, continueDraft, mintCallId, recoveryDrafts } from "../../../src/runtime/drafts";
import { classifyFailure, DEFAULT_POLICY, redactMessage, retryAt, sliceBackoff } from "../../../src/runtime/retry";
import { type LogBuilder, newLog } from "../support/fixtures";

const needsApproval = (call: CallState) => call.name === "delete_file";
const BASE = { turnId: "t1", runId: "r1" };

describe("stopDrafts (docs/API.md §3 Stop): one block answering every open call, then turnClose stopped", () => {
  it("rejects a pending approval, rejects an undispatched call, interrupts a dispatched one, skips answered ones", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c0", "read_file");
    ev.modelCall("c1", "write_file");
    ev.modelCall("c2", "delete_file");
    ev.modelCall("c3", "read_file");
    ev.dispatch("c0", "read");
    ev.response("c0", "ok");
    ev.dispatch("c1", "write");
    ev.permissionRequest("c2");
    const drafts = stopDrafts(projectRunState(ev.events), BASE);
    expect(
      drafts.map((d) => [
        d.author,
        d.content?.type ?? Object.keys(d.actions ?? {})[0],
        (d.content as any)?.status ?? null,
      ]),
    ).toEqual([
      ["tool", "functionResponse", "interrupted"],
      ["runtime", "permissionDecision", null],
      ["tool", "functionResponse", "rejected"],
      ["tool", "functionResponse", "rejected"],
      ["runtime", "turnClose", null],
    ]);
    expect(drafts[1]?.actions?.permissionDecision).toEqual({
      requestId: "apr_c2",
      decision: "reject",
      reason: "stopped",
      argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((drafts[0]!.content as any).callId).toBe("c1");
    expect(drafts[0]?.actions?.toolRecovery).toBeUndefined();
    expect(drafts.at(-1)?.actions?.turnClose).toEqual({ reason: "stopped" });
  });

  it("with nothing open, only the close", () => {
    const ev = newLog();
    ev.user("go");
    expect(stopDrafts(projectRunState(ev.events), BASE)).toEqual([
      { author: "runtime", modelVisibility: "hidden", ...BASE, actions: { turnClose: { reason: "stopped" } } },
    ]);
  });
});

describe("recoveryDrafts (docs/API.md §7.11, §7.12)", () => {
  const draftsFor = (log: (ev: LogBuilder) => void) => {
    const ev = newLog();
    log(ev);
    const plan = buildRecoveryPlan(ev.events, needsApproval);
    return recoveryDrafts(plan, projectRunState(ev.events), {
      turnId: "t1",
      runId: "r2",
      highWater: ev.events.length,
      now: 5,
    });
  };

  it("appends nothing when nothing was re-run, interrupted or re-issued (a waiting or fresh run)", () => {
    expect(draftsFor((ev) => ev.user("hi"))).toEqual([]);
    expect(
      draftsFor((ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file");
        ev.permissionRequest("c1");
      }),
    ).toEqual([]);
    expect(
      draftsFor((ev) => {
        ev.user("hi");
        ev.modelRequest();
        ev.modelCall("c1", "delete_file");
        ev.permissionRequest("c1");
        ev.permissionDecision("apr_c1", "approve");
      }),
    ).toEqual([]);
  });

  it("a lost model call: runStarted, the notice naming it (atSeq its own seq), the lost attempt as restart", () => {
    const drafts = draftsFor((ev) => {
      ev.user("hi");
      ev.modelRequest();
    });
    expect(drafts.map((d) => d.actions?.stateDelta)).toEqual([
      { runStarted: { runId: "r2", cause: "recovery" } },
      { recoveryNotice: { atSeq: 4, rerun: [], needsReview: [], reissued: ["inv1"] } },
      {
        modelAttempt: {
          invocationId: "inv1",
          attempt: 1,
          code: "restart",
          message: expect.any(String),
          retryAt: new Date(5).toISOString(),
        },
      },
    ]);
    for (const d of drafts) expect(d).toMatchObject({ author: "runtime", modelVisibility: "hidden", runId: "r2" });
  });

  it("a dispatched write is answered interrupted in the same block, before the notice; a read is only listed", () => {
    const drafts = draftsFor((ev) => {
      ev.user("hi");
      ev.modelRequest();
      ev.modelCall("c1", "read_file");
      ev.modelCall("c2", "write_file");
      ev.dispatch("c1", "read");
    });
    expect(drafts).toHaveLength(2);
    expect(drafts[1]?.actions?.stateDelta?.recoveryNotice).toEqual({
      atSeq: 7,
      rerun: ["c1"],
      needsReview: [],
      reissued: [],
    });
    const write = draftsFor((ev) => {
      ev.user("hi");
      ev.modelRequest();
      ev.modelCall("c2", "write_file");
      ev.dispatch("c2", "write");
    });
    expect(write.map((d) => d.content?.type ?? "delta")).toEqual(["delta", "functionResponse", "delta"]);
    expect(write[1]).toMatchObject({
      content: { status: "interrupted", response: { message: INTERRUPTED_DIRECTIVE } },
      actions: { toolRecovery: { callId: "c2", strategy: "interrupted" } },
    });
    expect(write[2]?.actions?.stateDelta?.recoveryNotice).toMatchObject({ atSeq: 7, needsReview: ["c2"] });
  });
});

describe("answerDrafts (docs/API.md §3, §7.6, §7.9, §7.10)", () => {
  const ids = { ...BASE, invocationId: "inv9" };
  const usage = { type: "usage" as const, inputTokens: 10, outputTokens: 3 };

  it("mints call ids, keeps the provider's as providerCallId, and puts usage and finishReason on the last event", () => {
    const drafts = answerDrafts(
      {
        text: "let me look",
        thinking: "",
        calls: [
          { type: "tool-call", callId: "prov_a", name: "read_file", args: { path: "a" } },
          { type: "tool-call", callId: "prov_a", name: "read_file", args: { path: "b" } },
        ],
        usage,
        finishReason: "tool-calls",
      },
      ids,
      { lengthStreak: 0, maxContinuations: 3 },
    );
    const calls = drafts.filter((d) => d.content?.type === "functionCall").map((d) => d.content as any);
    expect(calls.map((c) => c.callId)).toEqual([mintCallId("inv9", 0), mintCallId("inv9", 1)]);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(2);
    expect(calls.map((c) => c.providerCallId)).toEqual(["prov_a", "prov_a"]);
    expect(drafts.at(-1)?.actions).toEqual({
      tokenUsage: { inputTokens: 10, outputTokens: 3 },
      stateDelta: { finishReason: "tool-calls" },
    });
    expect(drafts.slice(0, -1).every((d) => d.actions === undefined)).toBe(true);
  });

  it("marks the answer after the third continuation truncated, and only that one", () => {
    const cut = { text: "…", thinking: "", calls: [], usage, finishReason: "length" as const };
    const flags = [0, 1, 2, 3].map(
      (lengthStreak) => answerDrafts(cut, ids, { lengthStreak, maxContinuations: 3 }).at(-1)?.actions?.stateDelta,
    );
    expect(flags).toEqual([
      { finishReason: "length" },
      { finishReason: "length" },
      { finishReason: "length" },
      { finishReason: "length", truncated: true },
    ]);
  });

  it("the continuation note is visible runtime text from runtime:continue", () => {
    expect(continueDraft(BASE)).toEqual({
      author: "runtime",
      source: "runtime:continue",
      modelVisibility: "visible",
      ...BASE,
      content: { type: "text", text: CONTINUE_TEXT },
    });
    expect(CONTINUE_TEXT).toBe("Continue exactly where you stopped.");
  });

  it("a failure is the error and turnClose failed, in that order", () => {
    const ev = newLog();
    ev.user("go");
    const drafts = failureDrafts(projectRunState(ev.events), BASE, "model_failed", "no");
    expect(drafts.map((d) => d.content?.type ?? Object.keys(d.actions!)[0])).toEqual(["error", "turnClose"]);
    expect(drafts.at(-1)?.actions?.turnClose).toEqual({ reason: "failed" });
  });

  it("a failure answers every open call and stops every child still at work, like a stop (docs/API.md#sub-sessions)", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("s1", "spawn_session", { goal: "a" });
    ev.modelCall("s2", "spawn_session", { goal: "b" });
    ev.modelCall("w1", "write_file");
    ev.modelCall("d1", "delete_file");
    ev.modelCall("r1", "read_file");
    ev.dispatch("s1", "idempotent");
    ev.dispatch("s2", "idempotent");
    ev.response("s2", "ok", { sessionId: "x", status: "completed", result: null });
    ev.dispatch("w1", "write");
    ev.permissionRequest("d1");
    const drafts = failureDrafts(projectRunState(ev.events), BASE, "internal", "poisoned");
    expect(
      drafts.map((d) => [
        d.content?.type ?? Object.keys(d.actions ?? {})[0],
        (d.content as any)?.callId ?? null,
        (d.content as any)?.status ?? null,
      ]),
    ).toEqual([
      ["error", null, null],
      ["functionResponse", "s1", "interrupted"],
      ["functionResponse", "w1", "interrupted"],
      ["permissionDecision", null, null],
      ["functionResponse", "d1", "rejected"],
      ["functionResponse", "r1", "rejected"],
      ["stateDelta", null, null],
      ["turnClose", null, null],
    ]);
    expect(drafts.at(-2)?.actions?.stateDelta).toEqual({ stopChildren: { callIds: ["s1"] } });
    expect(drafts.at(-1)?.actions?.turnClose).toEqual({ reason: "failed" });
    expect((drafts[1]!.content as any).response).toMatchObject({ reason: "failed" });
  });
});

describe("attempts (docs/API.md §7.8)", () => {
  it("retry n waits the policy's backoff, Retry-After wins up to 60 s, none after the 4th retry or when not retryable", () => {
    const f = { code: "http_503" as const, message: "", retryable: true };
    expect([1, 2, 3, 4, 5].map((n) => retryAt(f, n, 0, DEFAULT_POLICY))).toEqual([1000, 2000, 4000, 8000, null]);
    expect(retryAt({ ...f, retryAfterMs: 1500 }, 1, 0, DEFAULT_POLICY)).toBe(1500);
    expect(retryAt({ ...f, retryAfterMs: 999_999 }, 1, 0, DEFAULT_POLICY)).toBe(60_000);
    expect(retryAt({ ...f, retryable: false }, 1, 0, DEFAULT_POLICY)).toBeNull();
    expect([1, 2, 3, 4].map((n) => sliceBackoff(n, DEFAULT_POLICY))).toEqual([2000, 4000, 8000, 16_000]);
  });

  it("our own bugs are not provider failures: classifyFailure rethrows them", () => {
    const bug = new TypeError("x is undefined");
    expect(() => classifyFailure(bug)).toThrow(bug);
    expect(toProviderError(bug)).toBe(bug);
    expect(classifyFailure(new ProviderError("busy", 503, true))).toEqual({
      code: "http_503",
      message: "busy",
      retryable: true,
    });
  });

  it("a body that failed after a 200 (connection lost mid-stream) is a retryable network failure", () => {
    const sdk = new APICallError({
      message: "Failed to process successful response",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 200,
      isRetryable: true,
      cause: new TypeError("terminated"),
    });
    expect(toProviderError(sdk)).toMatchObject({ retryable: true, attemptCode: "network", status: null });
  });

  it("messages are redacted and bounded", () => {
    const m = redactMessage(`key sk-live_123456 and Bearer abc.def and my-secret-key ${"y".repeat(800)}`, [
      "my-secret-key",
    ]);
    expect(m.length).toBeLessThanOrEqual(500);
    expect(m).not.toMatch(/sk-live_123456|abc\.def|my-secret-key/);
  });
});
