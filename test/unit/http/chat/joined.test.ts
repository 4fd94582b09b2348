/**
 * A message that joins a turn mid-way (docs/API.md#chat-ai-sdk-ui-message-stream, "Message ids"):
 * what the AI SDK's own `Chat` ends up with after a reload (`GET /messages`, then the resume) and
 * while streaming live, from hand-written logs. One assistant message per answer, none twice.
 */
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { assistantMessageId, UIMessagesFold } from "../../../../src/http/chat/messages";
import { ChatParts, type UIChunk } from "../../../../src/http/chat/parts";
import type { Event } from "../../../../src/log";
import { TestChat as Client } from "../../support/ai-chat";
import { type LogBuilder, newLog } from "../../support/fixtures";

const streamOf = (chunks: UIChunk[]) =>
  new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk as UIMessageChunk);
      c.close();
    },
  });

/** What a chat stream sends: the events after `after`, folded as the Worker folds them. */
function chunksOf(events: Event[], after: number, opts: ConstructorParameters<typeof ChatParts>[0]): UIChunk[] {
  const parts = new ChatParts(opts);
  const out = parts.start();
  for (const e of events) if (e.seq > after && !parts.done) out.push(...parts.event(e));
  return out;
}

function messagesOf(events: Event[]) {
  const fold = new UIMessagesFold();
  fold.add(events);
  return JSON.parse(JSON.stringify(fold.messages)) as UIMessage[];
}

const sent = (log: LogBuilder, text: string, id: string) =>
  log.user(text, { actions: { stateDelta: { idempotencyKey: `ui:${id}` } } });

const summary = (ms: UIMessage[]) =>
  ms.map((m) => [
    m.id,
    m.parts
      .filter((p) => p.type === "text" || p.type === "dynamic-tool")
      .map((p) => ("text" in p ? p.text : `${(p as { toolName: string }).toolName}:${(p as { state: string }).state}`)),
  ]);

/** The turn's last user message: where `GET /stream` resumes (the object's `answerSeq`). */
const answerSeqOf = (events: Event[]) => Math.max(...events.filter((e) => e.author === "user").map((e) => e.seq));

describe("a message that joins a running turn", () => {
  /** m-1 opens the turn; m-2 arrives while the first model call runs; a second call answers it. */
  function joinedLog() {
    const log = newLog();
    const u1 = sent(log, "first", "m-1");
    log.modelRequest();
    const u2 = sent(log, "second", "m-2");
    log.modelText("answer one");
    const reloadAt = log.modelRequest().seq;
    log.modelText("answer two");
    log.turnClose("completed");
    return { log, u1, u2, reloadAt };
  }

  it("after a reload mid-turn, GET /messages and the resumed stream give one message per answer", async () => {
    const { log, u1, u2, reloadAt } = joinedLog();
    const before = log.events.filter((e) => e.seq <= reloadAt);
    const answerSeq = answerSeqOf(before);
    expect(answerSeq).toBe(u2.seq);
    const resumed = chunksOf(log.events, answerSeq, { turnId: "t1", messageId: assistantMessageId(answerSeq) });
    const client = new Client(messagesOf(before), {
      sendMessages: async () => streamOf([]),
      reconnectToStream: async () => streamOf(resumed),
    });
    await client.resumeStream();
    expect(summary(client.all)).toEqual([
      ["m-1", ["first"]],
      [`a_${u1.seq}`, ["answer one"]],
      ["m-2", ["second"]],
      [`a_${u2.seq}`, ["answer two"]],
    ]);
    // What the client holds is what the next reload gives.
    expect(client.all).toEqual(messagesOf(log.events));
  });

  it("live, the first message's stream ends where the joined message's answer starts", async () => {
    const { log, u1, u2 } = joinedLog();
    const first = chunksOf(log.events, u1.seq, { turnId: "t1", messageId: assistantMessageId(u1.seq) });
    expect(first.at(-1)).toEqual({ type: "finish", finishReason: "other" });
    const second = chunksOf(log.events, u2.seq, { turnId: "t1", messageId: assistantMessageId(u2.seq) });
    const streams = [first, second];
    const client = new Client([], {
      sendMessages: async () => streamOf(streams.shift()!),
      reconnectToStream: async () => null,
    });
    await client.sendMessage({ id: "m-1", role: "user", parts: [{ type: "text", text: "first", state: "done" }] });
    await client.sendMessage({ id: "m-2", role: "user", parts: [{ type: "text", text: "second", state: "done" }] });
    expect(client.all).toEqual(messagesOf(log.events));
  });

  it("a call the first model call made after the join stays in the first answer, with its outcome", () => {
    const log = newLog();
    sent(log, "first", "m-1");
    log.modelRequest();
    const u2 = sent(log, "second", "m-2");
    log.modelCall("c1", "list_files");
    log.dispatch("c1", "read");
    log.response("c1", "ok", { files: [] });
    log.modelRequest();
    log.modelText("answer two");
    log.turnClose("completed");
    expect(summary(messagesOf(log.events))).toEqual([
      ["m-1", ["first"]],
      ["a_1", ["list_files:output-available"]],
      ["m-2", ["second"]],
      [`a_${u2.seq}`, ["answer two"]],
    ]);
    const second = chunksOf(log.events, u2.seq, { turnId: "t1" });
    expect(second.map((c) => c.type)).not.toContain("tool-input-available");
  });
});

describe("a message that joins a turn waiting for an approval", () => {
  it("the approval stays in the first answer; after the decision that answer ends and the next is the joined one's", async () => {
    const log = newLog();
    const u1 = sent(log, "write it", "m-1");
    const call = log.modelRequest();
    log.modelCall("c1", "write_file", { path: "a.txt" });
    log.permissionRequest("c1");
    const u2 = sent(log, "and then?", "m-2");
    // Reloaded here: the turn waits, so `GET /stream` is 204 and the messages are all there is.
    const waiting = messagesOf(log.events);
    expect(summary(waiting)).toEqual([
      ["m-1", ["write it"]],
      [`a_${u1.seq}`, ["write_file:approval-requested"]],
      ["m-2", ["and then?"]],
    ]);
    const decidedAfter = log.events.length;
    log.permissionDecision("apr_c1", "approve");
    log.dispatch("c1", "write");
    log.response("c1", "ok", { ok: true });
    log.modelRequest();
    log.modelText("Written, and here is what comes next.");
    log.turnClose("completed");
    // The approvals stream continues m-1's answer only: a message joined after its call.
    const joined = u2.seq > call.seq;
    const chunks = chunksOf(log.events, decidedAfter, { turnId: "t1", knownCalls: ["c1"], joined });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "other" });
    const final = messagesOf(log.events);
    expect(summary(final)).toEqual([
      ["m-1", ["write it"]],
      [`a_${u1.seq}`, ["write_file:output-available"]],
      ["m-2", ["and then?"]],
      [`a_${u2.seq}`, ["Written, and here is what comes next."]],
    ]);
  });
});
