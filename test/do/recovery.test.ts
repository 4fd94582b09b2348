/**
 * docs/API.md §3 "The log records every request as sent", §7.7, §7.8, §7.11, §7.12: what a new
 * incarnation does with an open turn. An eviction or a crash is a fresh runtime over the same
 * storage (`reopen`), driven by hand.
 */
import { describe, expect, it } from "vitest";
import { canonical, type Event, sha256Hex } from "../../src/log";
import type { ModelConfig, ModelPart, ModelProvider, ModelRequest } from "../../src/model/types";
import { withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };

/** Records every request as sent; `answer(n)` gives the parts of call n, or null to hang for ever (a lost call). */
function recording(answer: (n: number, r: ModelRequest) => ModelPart[] | null) {
  const sent: ModelRequest[] = [];
  let reached: () => void = () => {};
  const firstCall = new Promise<void>((r) => {
    reached = r;
  });
  const provider: ModelProvider = {
    name: "openai",
    async *stream(request) {
      const n = sent.push(structuredClone(request)) - 1;
      reached();
      const parts = answer(n, request);
      if (parts === null) await new Promise(() => {});
      for (const p of parts ?? []) yield p;
    },
  };
  return { provider, sent, firstCall };
}

const text = (t: string): ModelPart[] => [
  { type: "text-delta", text: t },
  { type: "usage", inputTokens: 10, outputTokens: 2 },
  { type: "finish", reason: "stop" },
];

/** docs/API.md §7.7, computed here from the request as the provider received it. */
const digestOf = (r: ModelRequest) =>
  sha256Hex(canonical({ messages: r.messages, tools: [...r.tools].sort((a, b) => a.name.localeCompare(b.name)) }));
const delta = (e: Event, key: string) => e.actions?.stateDelta?.[key] as any;

describe("a model call lost with the object", () => {
  it("is re-issued as exactly the recorded request; input that arrived meanwhile follows its answer", async () => {
    const lost = recording(() => null);
    const after = recording((n) => text(n === 0 ? "first answer" : "second answer"));
    await withSession({ provider: lost.provider, model: MODEL }, async (h) => {
      await h.runtime.postMessage({ text: "task one", source: "http" });
      void h.runtime.alarm(); // streams for ever: the object dies with it
      await lost.firstCall;
      const b = h.reopen(after.provider);
      expect(b.session().status).toBe("recovering");
      await b.postMessage({ text: "and also this", source: "http" });
      for (let i = 0; i < 10 && b.summary?.openTurn; i++) await b.alarm();
      const events = h.events();
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");

      const sent = [...lost.sent, ...after.sent];
      expect(sent).toHaveLength(3);
      // Request 2 is request 1 again, byte for byte; request 3 extends it: nothing it sent is rewritten.
      expect(canonical(sent[1]!.messages)).toBe(canonical(sent[0]!.messages));
      expect(sent[2]!.messages.slice(0, sent[1]!.messages.length)).toEqual(sent[1]!.messages);
      expect(sent[2]!.messages.slice(sent[1]!.messages.length)).toEqual([
        { role: "assistant", content: [{ type: "text", text: "first answer" }] },
        { role: "user", content: "and also this" },
      ]);
      // Every request as sent is recorded (§7.7): each digest is some modelRequest's.
      const recorded = events.filter((e) => e.actions?.modelRequest).map((e) => e.actions!.modelRequest!.requestDigest);
      for (const r of sent) expect(recorded).toContain(digestOf(r));

      // The re-issue is a recovery: runStarted, a notice naming the invocation, the lost attempt as `restart`.
      const invocationId = events.find((e) => e.actions?.modelRequest)!.invocationId;
      const started = events.filter((e) => delta(e, "runStarted"));
      expect(started).toHaveLength(1);
      expect(delta(started[0]!, "runStarted")).toEqual({ runId: started[0]!.runId, cause: "recovery" });
      const notices = events.filter((e) => delta(e, "recoveryNotice"));
      expect(notices).toHaveLength(1);
      expect(delta(notices[0]!, "recoveryNotice")).toEqual({
        atSeq: notices[0]!.seq,
        rerun: [],
        needsReview: [],
        reissued: [invocationId],
      });
      const attempts = events.filter((e) => delta(e, "modelAttempt")).map((e) => delta(e, "modelAttempt"));
      expect(attempts).toEqual([
        { invocationId, attempt: 1, code: "restart", message: expect.any(String), retryAt: expect.any(String) },
      ]);
      expect(b.session().recoveryNotice).toMatchObject({ reissued: [invocationId] });
    });
  });
});

describe("taking over a run that was only waiting", () => {
  it("approving a call after the object was evicted appends no notice and no runStarted, and keeps the runId", async () => {
    const calls: ModelPart[] = [
      { type: "tool-call", callId: "prov-1", name: "write_file", args: { path: "a.txt", content: "x" } },
      { type: "usage", inputTokens: 10, outputTokens: 2 },
      { type: "finish", reason: "tool-calls" },
    ];
    const model = recording((n) => (n === 0 ? calls : text("written")));
    await withSession(
      { provider: model.provider, model: MODEL, options: { approvals: [{ tool: "write_file" }] } },
      async (h) => {
        await h.runtime.postMessage({ text: "write a.txt", source: "http" });
        await h.runtime.alarm();
        expect(h.runtime.session().status).toBe("waiting_approval");
        const b = h.reopen();
        expect(b.session().status).toBe("waiting_approval");
        const [pending] = b.session().pendingApprovals;
        await b.decide({ requestId: pending!.requestId, decision: "approve" });
        for (let i = 0; i < 10 && b.summary?.openTurn; i++) await b.alarm();
        const events = h.events();
        expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
        expect(events.filter((e) => delta(e, "recoveryNotice"))).toEqual([]);
        expect(events.filter((e) => delta(e, "runStarted"))).toEqual([]);
        expect(new Set(events.filter((e) => e.runId).map((e) => e.runId)).size).toBe(1);
        expect(b.session().recoveryNotice).toBeNull();
        // docs/API.md §7.6: the runtime minted the call id; the provider's is kept beside it.
        const call = events.find((e) => e.content?.type === "functionCall")!.content as any;
        expect(call.callId).not.toBe("prov-1");
        expect(call.providerCallId).toBe("prov-1");
      },
    );
  });
});

describe("an answer cut at length (docs/API.md §7.10)", () => {
  const cut = (t: string): ModelPart[] => [
    { type: "text-delta", text: t },
    { type: "usage", inputTokens: 10, outputTokens: 4000 },
    { type: "finish", reason: "length" },
  ];

  it("is continued: a visible runtime note, then its modelRequest; the turn completes when an answer stops", async () => {
    const model = recording((n) => (n === 0 ? cut("part one…") : text(" and the end.")));
    await withSession({ provider: model.provider, model: MODEL }, async (h) => {
      await h.runTurn("write a long essay");
      const events = h.events();
      const note = events.find((e) => e.author === "runtime" && e.content?.type === "text")!;
      expect(note).toMatchObject({
        source: "runtime:continue",
        modelVisibility: "visible",
        content: { type: "text", text: "Continue exactly where you stopped." },
      });
      expect(events[events.indexOf(note) + 1]?.actions?.modelRequest).toBeDefined();
      const answers = events.filter((e) => e.actions?.tokenUsage);
      expect(answers.map((e) => delta(e, "finishReason"))).toEqual(["length", "stop"]);
      expect(model.sent[1]!.messages.at(-1)).toEqual({ role: "user", content: "Continue exactly where you stopped." });
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
      expect(events.some((e) => delta(e, "truncated"))).toBe(false);
    });
  });

  it("at most 3 times in a row; the 4th answer at length closes completed and carries truncated: true", async () => {
    const model = recording(() => cut("more…"));
    await withSession({ provider: model.provider, model: MODEL }, async (h) => {
      await h.runTurn("never stop");
      const events = h.events();
      expect(model.sent).toHaveLength(4);
      expect(events.filter((e) => e.source === "runtime:continue")).toHaveLength(3);
      const answers = events.filter((e) => e.actions?.tokenUsage);
      expect(answers.map((e) => delta(e, "truncated") ?? false)).toEqual([false, false, false, true]);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });
});

describe("no cumulative limit (docs/API.md §7.13)", () => {
  it("a turn makes more than 200 model calls and completes", async () => {
    const model = recording((n) =>
      n < 205
        ? [
            { type: "tool-call", callId: `p${n}`, name: "list_files", args: {} },
            { type: "usage", inputTokens: 10, outputTokens: 2 },
            { type: "finish", reason: "tool-calls" },
          ]
        : text("all listed"),
    );
    await withSession({ provider: model.provider, model: MODEL }, async (h) => {
      await h.runtime.postMessage({ text: "list a lot", source: "http" });
      for (let i = 0; i < 100 && h.runtime.summary?.openTurn; i++) await h.runtime.alarm();
      const events = h.events();
      expect(model.sent).toHaveLength(206);
      expect(events.filter((e) => e.content?.type === "error")).toEqual([]);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });
});
