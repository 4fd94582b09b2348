/**
 * The channel outbox's pure decisions (docs/API.md#channels): retry times (Retry-After first),
 * the order rows go out in, progress pacing, and what a session's events report.
 */
import { describe, expect, it } from "vitest";
import { argsDigest, type Event } from "../../../src/contract";
import { dueInOrder, nextTryAt, PROGRESS_EVERY_MS, progressDueAt } from "../../../src/features/channels/outbox";
import { permanentStatus, retryAfterMs } from "../../../src/features/channels/platform";
import { commandOf, statusText } from "../../../src/features/channels/render";
import { mayReport, reportOf, type TurnLookup } from "../../../src/features/channels/reports";

describe("retries", () => {
  it("honours Retry-After (seconds or a date), else doubles from 1 s up to 5 min", () => {
    expect(retryAfterMs("3", 0)).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null, 0)).toBeNull();
    expect(retryAfterMs("soon", 0)).toBeNull();
    expect(nextTryAt(1, 7000, 100)).toBe(7100);
    expect([1, 2, 3, 4].map((t) => nextTryAt(t, null, 0))).toEqual([1000, 2000, 4000, 8000]);
    expect(nextTryAt(40, null, 0)).toBe(300_000);
  });

  it("429, 408 and 5xx are worth a retry; other 4xx are not", () => {
    expect([429, 408, 500, 503, undefined].map(permanentStatus)).toEqual([false, false, false, false, false]);
    expect([400, 401, 403, 404].map(permanentStatus)).toEqual([true, true, true, true]);
  });
});

describe("order", () => {
  it("a row waiting for its retry holds back the later rows of its thread only", () => {
    const rows = [
      { key: "a1", n: 1, thread: "A", nextAt: 500 },
      { key: "b1", n: 2, thread: "B", nextAt: 0 },
      { key: "a2", n: 3, thread: "A", nextAt: 0 },
      { key: "b2", n: 4, thread: "B", nextAt: 0 },
    ];
    expect(dueInOrder(rows, 100).map((r) => r.key)).toEqual(["b1", "b2"]);
    expect(dueInOrder(rows, 500).map((r) => r.key)).toEqual(["a1", "b1", "a2", "b2"]);
    // A progress edit waiting for its 5 s holds back nothing.
    const paced = [{ ...rows[0]!, paced: true }, ...rows.slice(1)];
    expect(dueInOrder(paced, 100).map((r) => r.key)).toEqual(["b1", "a2", "b2"]);
  });

  it("progress edits go at most every 5 s", () => {
    expect(progressDueAt(null, 1000)).toBe(1000);
    expect(progressDueAt(1000, 2000)).toBe(1000 + PROGRESS_EVERY_MS);
    expect(progressDueAt(1000, 9000)).toBe(9000);
  });
});

let seq = 0;
const ev = (e: Partial<Event>): Event =>
  ({
    seq: ++seq,
    sessionId: "s",
    at: "",
    digest: "",
    modelVisibility: "visible",
    author: "runtime",
    turnId: "t1",
    ...e,
  }) as Event;

/** A turn's words as the log would give them: the last text and error of the events so far. */
function reportsOf(events: Event[]) {
  const lookup: TurnLookup = {
    answer: (turnId, seq) => {
      const e = events.findLast(
        (x) => x.seq <= seq && x.turnId === turnId && x.author === "model" && x.content?.type === "text",
      );
      return e?.content?.type === "text" ? e.content.text : null;
    },
    error: (turnId, seq) => {
      const e = events.findLast((x) => x.seq <= seq && x.turnId === turnId && x.content?.type === "error");
      return e?.content?.type === "error" ? `${e.content.code}: ${e.content.message}` : null;
    },
  };
  return events.flatMap((e) => reportOf(e, lookup) ?? []);
}

describe("what a session's events report", () => {
  it("a completed turn: its last answer text; a stop; a failure with its error", () => {
    expect(
      reportsOf([
        ev({ author: "user", content: { type: "text", text: "hi" } }),
        ev({ author: "model", content: { type: "text", text: "first" } }),
        ev({ author: "model", content: { type: "text", text: "the answer" } }),
        ev({ actions: { turnClose: { reason: "completed" } } }),
      ]),
    ).toEqual([{ kind: "answer", turnId: "t1", text: "the answer" }]);
    // An answer's text alone reports nothing, so its commit needs no transaction of ours.
    expect(mayReport(ev({ author: "model", content: { type: "text", text: "x" } }))).toBe(false);
    expect(reportsOf([ev({ actions: { turnClose: { reason: "stopped" } } })])).toEqual([
      { kind: "stopped", turnId: "t1" },
    ]);
    expect(
      reportsOf([
        ev({ content: { type: "error", code: "internal", message: "boom" } }),
        ev({ actions: { turnClose: { reason: "failed" } } }),
      ]),
    ).toEqual([{ kind: "failed", turnId: "t1", message: "internal: boom" }]);
  });

  it("an approval request carries the argument digest a click must echo", () => {
    const args = { path: "a.md", content: "x" };
    const [r] = reportsOf([
      ev({ actions: { permissionRequest: { requestId: "apr_1", callId: "c1", tool: "write_file", args } } }),
    ]);
    expect(r).toEqual({
      kind: "approval",
      requestId: "apr_1",
      tool: "write_file",
      args: JSON.stringify(args),
      argsDigest: argsDigest(args),
    });
  });

  it("a recovery notice, a wait and a dispatch (progress)", () => {
    expect(
      reportsOf([
        ev({
          author: "runtime",
          modelVisibility: "hidden",
          actions: { stateDelta: { recoveryNotice: { atSeq: 1, rerun: ["c1"], needsReview: [] } } },
        }),
        ev({
          actions: {
            toolDispatch: { callId: "c2", tool: "wait_for", effect: "read", idempotencyKey: "k" },
            stateDelta: { wait: { waitId: "w", kind: "wait_for", reason: "the build" } },
          },
        }),
        ev({ actions: { toolDispatch: { callId: "c3", tool: "list_files", effect: "read", idempotencyKey: "k" } } }),
      ]),
    ).toEqual([
      { kind: "recovery", rerun: ["c1"], needsReview: [] },
      { kind: "wait", reason: "the build" },
      { kind: "progress", turnId: "t1", text: "Working: list_files…" },
    ]);
  });
});

describe("thread commands", () => {
  it("only the bare words are commands", () => {
    expect(["stop", "Status", " approve ", "reject.", "stop it", "please stop"].map(commandOf)).toEqual([
      "stop",
      "status",
      "approve",
      "reject",
      null,
      null,
    ]);
  });

  it("status says what the session does and its context in words", () => {
    const s = {
      status: "running",
      pendingApprovals: [],
      wait: null,
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
    } as unknown as Parameters<typeof statusText>[0];
    expect(statusText(s, { estimatedTokens: 12_800, threshold: 115_200, contextWindow: 128_000 })).toBe(
      "Status: working on the turn; context 12,800 of 128,000 tokens (10% of the window; it compacts at 90%); 15 tokens used so far.",
    );
  });
});
