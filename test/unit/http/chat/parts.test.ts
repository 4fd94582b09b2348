/**
 * The chat stream's parts (docs/API.md#chat-ai-sdk-ui-message-stream), folded from hand-written
 * logs and frames and read back with the AI SDK's own `readUIMessageStream`: what a `useChat`
 * page would show.
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { UIMessagesFold } from "../../../../src/http/chat/messages";
import { ChatParts, type UIChunk } from "../../../../src/http/chat/parts";
import type { Event } from "../../../../src/log";
import { newLog } from "../../support/fixtures";

type Frame =
  | { event: Event }
  | { delta: { invocationId: string; attempt: number; kind: "text" | "thinking"; text: string; replace?: boolean } }
  | { session: { highWater: number; openTurn: boolean; status: string; wait?: unknown } };

function fold(frames: Frame[], opts: ConstructorParameters<typeof ChatParts>[0] = { turnId: "t1" }) {
  const parts = new ChatParts(opts);
  const chunks: UIChunk[] = [...parts.start()];
  for (const f of frames) {
    if (parts.done) break;
    if ("event" in f) chunks.push(...parts.event(f.event));
    else if ("delta" in f) chunks.push(...parts.delta(f.delta));
    else chunks.push(...parts.session(f.session));
  }
  return { chunks, done: parts.done };
}

/** The message the AI SDK builds from the chunks (its last state). */
async function messageOf(chunks: UIChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk as UIMessageChunk);
      c.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true, ...(message ? { message } : {}) }))
    last = m;
  return JSON.parse(JSON.stringify(last)) as UIMessage;
}

const ev = (e: Event): Frame => ({ event: e });
const text = (m: UIMessage) => m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);

describe("chat parts from the log and the deltas", () => {
  it("streams deltas, then ends the text with what was committed, then finishes with the turn", async () => {
    const log = newLog();
    const user = log.user("hi");
    const req = log.modelRequest();
    const answer = log.modelText("Hello there", { tokenUsage: { inputTokens: 1, outputTokens: 2 } });
    const close = log.turnClose("completed");
    const { chunks, done } = fold([
      { session: { highWater: user.seq, openTurn: true, status: "running" } },
      ev(req),
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "Hel" } },
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "lo" } },
      ev(answer),
      ev(close),
    ]);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.type)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const m = await messageOf(chunks);
    expect(text(m)).toEqual(["Hello there"]);
    expect(m.parts[0]?.type).toBe("step-start");
  });

  it("a replay with no deltas gives the same message as the live stream", async () => {
    const log = newLog();
    log.user("hi");
    const events = [log.modelRequest(), log.modelThinking("hmm"), log.modelText("Hello"), log.turnClose("completed")];
    const live = fold([
      ev(events[0]!),
      { delta: { invocationId: "inv1", attempt: 1, kind: "thinking", text: "hm" } },
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "He" } },
      ...events.slice(1).map(ev),
    ]);
    const replay = fold(events.map(ev));
    expect(await messageOf(live.chunks)).toEqual(await messageOf(replay.chunks));
    expect((await messageOf(replay.chunks)).parts.map((p) => p.type)).toEqual(["step-start", "reasoning", "text"]);
  });

  it("a client that connects mid-answer gets the in-flight text once (replace), then the rest", async () => {
    const log = newLog();
    log.user("hi");
    const req = log.modelRequest();
    const { chunks } = fold([
      ev(req),
      { session: { highWater: req.seq, openTurn: true, status: "running" } },
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "Hello wo", replace: true } },
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "rld" } },
      ev(log.modelText("Hello world")),
      ev(log.turnClose("completed")),
    ]);
    expect(text(await messageOf(chunks))).toEqual(["Hello world"]);
  });

  it("a failed attempt's text leaves the message (reset-step) and the retry's stands", async () => {
    const log = newLog();
    log.user("hi");
    const req = log.modelRequest();
    const attempt = log.stateDelta(
      { modelAttempt: { invocationId: "inv1", attempt: 1, code: "stream_cut", message: "cut", retryAt: "x" } },
      "runtime",
    );
    attempt.invocationId = "inv1";
    const { chunks } = fold([
      ev(req),
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "Wrong and cut" } },
      ev(attempt),
      { delta: { invocationId: "inv1", attempt: 2, kind: "text", text: "Right" } },
      ev(log.modelText("Right")),
      ev(log.turnClose("completed")),
    ]);
    expect(chunks.map((c) => c.type)).toContain("reset-step");
    expect(chunks.find((c) => c.type === "data-highwater-attempt")).toMatchObject({ transient: true });
    expect(text(await messageOf(chunks))).toEqual(["Right"]);
  });

  it("after a failed or re-issued attempt, the next attempt streams live whatever its number", () => {
    const log = newLog();
    log.user("hi");
    const req = log.modelRequest();
    const restart = log.stateDelta(
      { modelAttempt: { invocationId: "inv1", attempt: 1, code: "restart", message: "restarted", retryAt: "x" } },
      "runtime",
    );
    restart.invocationId = "inv1";
    const { chunks } = fold([
      ev(req),
      ev(restart),
      { delta: { invocationId: "inv1", attempt: 3, kind: "text", text: "live" } },
      { delta: { invocationId: "inv1", attempt: 2, kind: "text", text: "stale" } },
    ]);
    expect(chunks.filter((c) => c.type === "text-delta").map((c) => c.delta)).toEqual(["live"]);
  });

  it("an approval becomes tool-approval-request with the requestId, and the stream ends when the turn waits", async () => {
    const log = newLog();
    log.user("write it");
    const events = [
      log.modelRequest(),
      log.modelCall("c1", "write_file", { path: "a.txt", content: "x" }),
      log.permissionRequest("c1", "apr_0123"),
    ];
    const { chunks, done } = fold([
      ...events.map(ev),
      { session: { highWater: events[2]!.seq, openTurn: true, status: "waiting_approval" } },
    ]);
    expect(done).toBe(true);
    expect(chunks).toContainEqual({ type: "tool-approval-request", approvalId: "apr_0123", toolCallId: "c1" });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    const m = await messageOf(chunks);
    expect(m.parts[1]).toMatchObject({
      type: "dynamic-tool",
      toolName: "write_file",
      toolCallId: "c1",
      state: "approval-requested",
      input: { path: "a.txt", content: "x" },
      approval: { id: "apr_0123" },
    });
  });

  it("does not end while replaying: a waiting status counts only once the stream has caught up", () => {
    const log = newLog();
    log.user("write it");
    const req = log.modelRequest();
    const { chunks, done } = fold([{ session: { highWater: 9, openTurn: true, status: "waiting_approval" } }, ev(req)]);
    expect(done).toBe(false);
    expect(chunks.map((c) => c.type)).toEqual(["start", "start-step"]);
  });

  it("after an approval, the call's outcome continues the client's message and the next step follows", async () => {
    const log = newLog();
    log.user("write it");
    const before = [
      log.modelRequest(),
      log.modelCall("c1", "write_file", { path: "a.txt" }),
      log.permissionRequest("c1"),
    ];
    const first = fold([...before.map(ev), { session: { highWater: 4, openTurn: true, status: "waiting_approval" } }]);
    const shown = await messageOf(first.chunks);
    log.permissionDecision("apr_c1", "approve");
    const after = [log.dispatch("c1", "write"), log.response("c1", "ok", { ok: true }), log.modelRequest()];
    const rest = [...after, log.modelText("Written."), log.turnClose("completed")];
    const cont = fold(rest.map(ev), { turnId: "t1", knownCalls: ["c1"] });
    const m = await messageOf(cont.chunks, shown);
    expect(m.parts.map((p) => p.type)).toEqual(["step-start", "dynamic-tool", "step-start", "text"]);
    expect(m.parts[1]).toMatchObject({ state: "output-available", output: { ok: true } });
  });

  it("an outcome of a call this stream never showed is not sent (the client has no part for it)", () => {
    const log = newLog();
    log.user("first");
    log.modelRequest();
    log.modelCall("c1", "list_files");
    const joined = log.user("second");
    const { chunks } = fold([ev(log.response("c1", "ok")), ev(log.turnClose("completed"))], {
      turnId: "t1",
      messageId: `a_${joined.seq}`,
    });
    expect(chunks.map((c) => c.type)).toEqual(["start", "finish"]);
  });

  it("a stop drops streamed text that was never committed, and finishes", async () => {
    const log = newLog();
    log.user("hi");
    const req = log.modelRequest();
    const { chunks } = fold([
      ev(req),
      { delta: { invocationId: "inv1", attempt: 1, kind: "text", text: "half an ans" } },
      ev(log.turnClose("stopped")),
    ]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "other" });
    expect(text(await messageOf(chunks))).toEqual([]);
  });

  it("errors, waits and recoveries map onto parts", () => {
    const log = newLog();
    log.user("go");
    const req = log.modelRequest();
    const notice = log.stateDelta(
      { recoveryNotice: { atSeq: 3, rerun: [], needsReview: ["c9"], reissued: ["inv1"] } },
      "runtime",
    );
    const failed = fold([ev(req), ev(notice), ev(log.error("model_failed", "gave up")), ev(log.turnClose("failed"))]);
    expect(failed.chunks).toContainEqual({ type: "error", errorText: "model_failed: gave up" });
    expect(failed.chunks).toContainEqual(expect.objectContaining({ type: "data-highwater-recovery" }));
    expect(failed.chunks.at(-1)).toEqual({ type: "finish", finishReason: "error" });

    const wait = { runId: "r1", waitId: "w1", kind: "wait_for", reason: "deploy" };
    const waiting = fold([ev(req), { session: { highWater: req.seq, openTurn: true, status: "waiting", wait } }]);
    expect(waiting.chunks.slice(-2)).toEqual([
      { type: "data-highwater-wait", data: wait },
      { type: "finish", finishReason: "other" },
    ]);
  });

  it("ignores events of other turns and deltas of other invocations", () => {
    const log = newLog();
    log.turn("t0");
    const other = log.user("elsewhere");
    const { chunks } = fold([ev(other), { delta: { invocationId: "inv7", attempt: 1, kind: "text", text: "x" } }]);
    expect(chunks.map((c) => c.type)).toEqual(["start"]);
  });
});

describe("chat messages from the log", () => {
  it("are the messages the stream builds, with the chat's own user id and the stream's answer id", async () => {
    const log = newLog();
    const user = log.user("write it", {});
    user.actions = { stateDelta: { idempotencyKey: "ui:m-1" } };
    const turn = [
      log.modelRequest(),
      log.modelThinking("plan"),
      log.modelText("Writing."),
      log.modelCall("c1", "write_file", { path: "a.txt" }),
      log.permissionRequest("c1"),
      log.permissionDecision("apr_c1", "approve"),
      log.dispatch("c1", "write"),
      log.response("c1", "ok", { ok: true }),
      log.modelRequest(),
      log.modelText("Done."),
      log.turnClose("completed"),
    ];
    const messages = new UIMessagesFold();
    messages.add(log.events);
    expect(messages.messages.map((m) => [m.id, m.role])).toEqual([
      ["m-1", "user"],
      [`a_${user.seq}`, "assistant"],
    ]);
    const streamed = await messageOf(fold(turn.map(ev), { turnId: "t1", messageId: `a_${user.seq}` }).chunks);
    expect(messages.messages[1]).toEqual(streamed);
  });
});
