/**
 * What the chat shows of a tool's outcome and how much of it (docs/API.md#chat-ai-sdk-ui-message-stream):
 * an offloaded result is the placeholder the model saw, with the archive's HTTP path, in the
 * stream and in `GET /messages` alike; a page of messages holds the newest that fit its bytes.
 */
import { describe, expect, it } from "vitest";
import { UIMessagesFold } from "../../../../src/http/chat/messages";
import { ChatParts } from "../../../../src/http/chat/parts";
import { placeholderFor } from "../../../../src/log";
import { newLog } from "../../support/fixtures";

const SHA = "a".repeat(64);
const MARK = { sha256: SHA, bytes: 3_000_000, preview: "row 1, row 2" };

/** A turn whose one call's 3 MB result was offloaded: the event keeps it whole (§7.5). */
function offloadedTurn() {
  const log = newLog({ sessionId: "sess1" });
  log.user("fetch the table");
  log.modelRequest();
  const call = "c1";
  log.modelCall(call, "http_fetch", { url: "https://x" });
  log.result(call, "http_fetch", { body: "x".repeat(3_000_000) }, "ok", { stateDelta: { offload: MARK } });
  log.modelRequest();
  log.modelText("done");
  log.turnClose("completed");
  return { log, call };
}

const shown = { ...placeholderFor("http_fetch", MARK), href: `/v1/sessions/sess1/archive/${SHA}` };

describe("an offloaded result in the chat", () => {
  it("GET /messages shows the placeholder with the archive's path, not the result", () => {
    const { log, call } = offloadedTurn();
    const fold = new UIMessagesFold();
    fold.add(log.events);
    const part = fold.messages[1]!.parts.find((p) => p.toolCallId === call)!;
    expect(part).toMatchObject({ state: "output-available", output: shown });
    expect(JSON.stringify(fold.messages).length).toBeLessThan(2000);
  });

  it("the stream sends the same placeholder", () => {
    const { log, call } = offloadedTurn();
    const parts = new ChatParts({ turnId: "t1" });
    // The stream of a message starts after it.
    const chunks = log.events.slice(1).flatMap((e) => parts.event(e));
    const output = chunks.find((c) => c.type === "tool-output-available");
    expect(output).toEqual({ type: "tool-output-available", toolCallId: call, output: shown, dynamic: true });
    expect(JSON.stringify(chunks).length).toBeLessThan(3000);
  });

  it("a result that was not offloaded is shown whole", () => {
    const log = newLog({ sessionId: "sess1" });
    log.user("look");
    log.modelRequest();
    const call = "c1";
    log.modelCall(call, "lookup");
    log.result(call, "lookup", { id: 7 });
    const fold = new UIMessagesFold();
    fold.add(log.events);
    expect(fold.messages[1]!.parts.find((p) => p.toolCallId === call)).toMatchObject({ output: { id: 7 } });
  });
});

/** `turns` turns, each a user message and an answer with one call whose result is `bytes` long. */
function heavyLog(turns: number, bytes: number, callsPerTurn = 1) {
  const log = newLog({ sessionId: "sess1" });
  for (let i = 1; i <= turns; i++) {
    log.turn(`t${i}`);
    log.user(`question ${i}`);
    log.modelRequest();
    for (let k = 0; k < callsPerTurn; k++) {
      log.modelCall(`c${i}.${k}`, "lookup", { i, k });
      log.result(`c${i}.${k}`, "lookup", `${i}.${k}:${"r".repeat(bytes)}`);
    }
    log.turnClose("completed");
  }
  return log;
}
const size = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

describe("a page of messages bounded in bytes", () => {
  it("keeps the newest messages that fit and says the page was cut", () => {
    const fold = new UIMessagesFold({ messages: 100, bytes: 64 * 1024 });
    const log = heavyLog(20, 10_000);
    // Fed a page of events at a time, as the route reads them.
    for (let i = 0; i < log.events.length; i += 7) fold.add(log.events.slice(i, i + 7));
    expect(fold.cut).toBe(true);
    expect(size(fold.messages)).toBeLessThanOrEqual(64 * 1024);
    // The newest: the last answer is whole, and the messages are consecutive up to it.
    const texts = fold.messages.flatMap((m) => m.parts.filter((p) => p.type === "text").map((p) => p.text));
    expect(texts.at(-1)).toBe("question 20");
    expect(fold.messages.length).toBeGreaterThanOrEqual(10);
    const all = new UIMessagesFold();
    all.add(log.events);
    expect(all.messages.slice(-fold.messages.length)).toEqual(fold.messages);
  });

  it("a page under the bound is not cut, and `limit` still counts messages", () => {
    const fold = new UIMessagesFold({ messages: 3, bytes: 64 * 1024 });
    fold.add(heavyLog(5, 10).events);
    expect(fold.cut).toBe(false);
    expect(fold.messages).toHaveLength(3);
  });

  it("one answer over the bound keeps its newest parts after a part that counts those left out", () => {
    const fold = new UIMessagesFold({ messages: 100, bytes: 64 * 1024 });
    fold.add(heavyLog(1, 10_000, 30).events);
    expect(fold.cut).toBe(true);
    expect(size(fold.messages)).toBeLessThanOrEqual(64 * 1024);
    const [answer] = fold.messages.filter((m) => m.role === "assistant");
    const omitted = answer!.parts[0] as { type: string; data: { parts: number } };
    expect(omitted.type).toBe("data-highwater-omitted");
    expect(omitted.data.parts).toBeGreaterThan(0);
    const outputs = answer!.parts.filter((p) => p.type === "dynamic-tool").map((p) => String(p.output).split(":")[0]);
    expect(outputs.at(-1)).toBe("1.29");
  });
});
