/**
 * The AI SDK's own chat client against a real `wrangler dev` (docs/API.md#chat-ai-sdk-ui-message-stream):
 * `DefaultChatTransport` sends and reconnects, `readUIMessageStream` reads; no parser of ours.
 */
import { rmSync } from "node:fs";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestChat } from "../unit/support/ai-chat";
import { type Api, createApi } from "./harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "e2e-chat-token";
const SLOW_ANSWER = "This answer arrives slowly, in four pieces, so a client can drop in the middle of it.";
const JOINED_ANSWER = "The message that joined the turn gets its own answer, also slowly, in pieces.";

type Part = {
  type: string;
  text?: string;
  state?: string;
  toolCallId?: string;
  approval?: { id: string };
  output?: unknown;
};

async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true, ...(message ? { message } : {}) }))
    last = m;
  if (!last) throw new Error("empty stream");
  return JSON.parse(JSON.stringify(last)) as UIMessage;
}

const textOf = (m: UIMessage) =>
  (m.parts as Part[])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
const userMessage = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

describe("useChat's transport against highwater", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;
  let transport: DefaultChatTransport<UIMessage>;

  beforeAll(async () => {
    fake = await startFakeOpenAI(
      scriptedAgent((step, ctx) => {
        if (ctx.lastUserText === "slow") return { text: SLOW_ANSWER, chunkDelayMs: 700 };
        if (ctx.lastUserText === "and another thing") return { text: JOINED_ANSWER, chunkDelayMs: 1500 };
        if (ctx.lastUserText === "write a.txt")
          return step === 0
            ? { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "hi" } }] }
            : { text: "Written." };
        return { text: `You said: ${ctx.lastUserText}` };
      }),
    );
    persistTo = makePersistDir();
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: fake.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake-model",
      },
    });
    api = createApi(worker.url, TOKEN);
    transport = new DefaultChatTransport({
      api: `${worker.url}/v1/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  const send = (chatId: string, messages: UIMessage[], abortSignal?: AbortSignal) =>
    transport.sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal });

  it("sends a message and streams the answer; a retried send appends nothing twice", async () => {
    const { id } = await api.createSession({});
    const first = await read(await send(id, [userMessage("m-1", "hello")]));
    expect(first.role).toBe("assistant");
    expect(textOf(first)).toBe("You said: hello");
    const again = await read(await send(id, [userMessage("m-1", "hello")]));
    expect(textOf(again)).toBe("You said: hello");
    expect(again.id).toBe(first.id);
    const users = (await api.allEvents(id)).filter((e) => e.author === "user" && e.content?.type === "text");
    expect(users).toHaveLength(1);
    expect(fake.chatRequests().filter((r) => JSON.stringify(r.body).includes("hello"))).toHaveLength(1);
    // The chat's messages: the user's own id, then the answer under the id the stream gave it.
    const res = await api.raw("GET", `/v1/chat/${id}/messages`);
    const messages = (await res.json()) as UIMessage[];
    expect(messages.map((m) => [m.id, m.role, textOf(m)])).toEqual([
      ["m-1", "user", "hello"],
      [first.id, "assistant", "You said: hello"],
    ]);
  });

  it("a client that drops mid-answer gets the whole answer from reconnectToStream; an idle chat is 204", async () => {
    const { id } = await api.createSession({});
    const abort = new AbortController();
    const stream = await send(id, [userMessage("m-slow", "slow")], abort.signal);
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before any text");
      if (value.type === "text-delta") break;
    }
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const resumed = await transport.reconnectToStream({ chatId: id });
    expect(resumed).not.toBeNull();
    const answer = await read(resumed!);
    expect(textOf(answer)).toBe(SLOW_ANSWER);
    // Closing the first stream stopped nothing: the turn completed.
    const closes = (await api.allEvents(id)).filter((e) => e.actions?.turnClose);
    expect(closes.map((e) => e.actions?.turnClose?.reason)).toEqual(["completed"]);
    expect(await transport.reconnectToStream({ chatId: id })).toBeNull();
  });

  it("an approval goes out as tool-approval-request, and the AI SDK's approval-responded decides it", async () => {
    const { id } = await api.createSession({ approvals: [{ tool: "write_file" }] });
    const asked = await read(await send(id, [userMessage("m-w", "write a.txt")]));
    const tool = (asked.parts as Part[]).find((p) => p.type === "dynamic-tool")!;
    expect(tool).toMatchObject({
      state: "approval-requested",
      toolName: "write_file",
      input: { path: "a.txt", content: "hi" },
    });
    const pending = (await api.getSession(id)).pendingApprovals;
    expect(tool.approval?.id).toBe(pending[0]?.requestId);

    // What addToolApprovalResponse leaves in the last message, sent back as the transport sends it.
    const answered: UIMessage = {
      ...asked,
      parts: (asked.parts as Part[]).map((p) =>
        p === tool ? { ...p, state: "approval-responded", approval: { id: tool.approval!.id, approved: true } } : p,
      ) as UIMessage["parts"],
    };
    const done = await read(await send(id, [userMessage("m-w", "write a.txt"), answered]), answered);
    expect((done.parts as Part[]).find((p) => p.type === "dynamic-tool")).toMatchObject({ state: "output-available" });
    expect(textOf(done)).toBe("Written.");
    expect(await api.file(id, "a.txt")).toBe("hi");
  });

  it("a rejection answered in the chat denies the call: nothing is written and the part says so", async () => {
    const { id } = await api.createSession({ approvals: [{ tool: "write_file" }] });
    const asked = await read(await send(id, [userMessage("m-r", "write a.txt")]));
    const tool = (asked.parts as Part[]).find((p) => p.type === "dynamic-tool")!;
    const answered = {
      ...asked,
      parts: (asked.parts as Part[]).map((p) =>
        p === tool ? { ...p, state: "approval-responded", approval: { id: tool.approval!.id, approved: false } } : p,
      ) as UIMessage["parts"],
    };
    const done = await read(await send(id, [answered]), answered);
    expect((done.parts as Part[]).find((p) => p.type === "dynamic-tool")).toMatchObject({ state: "output-denied" });
    expect((await api.files(id)).files).toEqual([]);
    const decisions = (await api.allEvents(id)).filter((e) => e.actions?.permissionDecision);
    expect(decisions.map((e) => e.actions?.permissionDecision?.decision)).toEqual(["reject"]);
  });

  it("an approval answered for other arguments than the call's is 409 and decides nothing", async () => {
    const { id } = await api.createSession({ approvals: [{ tool: "write_file" }] });
    const asked = await read(await send(id, [userMessage("m-x", "write a.txt")]));
    const tool = (asked.parts as Part[]).find((p) => p.type === "dynamic-tool")!;
    const forged = {
      ...asked,
      parts: [
        {
          ...tool,
          input: { path: "b.txt", content: "other" },
          state: "approval-responded",
          approval: { id: tool.approval!.id, approved: true },
        },
      ],
    };
    const res = await api.raw("POST", "/v1/chat", { id, messages: [forged], trigger: "submit-message" });
    expect(res.status).toBe(409);
    expect((await api.getSession(id)).status).toBe("waiting_approval");
  });

  it("after a kill -9 mid-answer, reconnectToStream gets the re-issued answer whole, with the recovery as a part", async () => {
    const { id } = await api.createSession({});
    const stream = await send(id, [userMessage("m-crash", "slow")]);
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before any text");
      if (value.type === "text-delta") break;
    }
    worker = await restartWrangler(worker);
    api = createApi(worker.url, TOKEN);
    transport = new DefaultChatTransport({
      api: `${worker.url}/v1/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await reader.cancel().catch(() => undefined);
    const resumed = await transport.reconnectToStream({ chatId: id });
    expect(resumed).not.toBeNull();
    const answer = await read(resumed!);
    expect(textOf(answer)).toBe(SLOW_ANSWER);
    const recovery = (answer.parts as (Part & { data?: { reissued?: string[] } })[]).find(
      (p) => p.type === "data-highwater-recovery",
    );
    expect(recovery?.data?.reissued).toHaveLength(1);
    expect((await api.getSession(id)).status).toBe("idle");
  });

  it("a long chat's whole history (over 1 MiB) is answered, and only its last message is appended", async () => {
    const { id } = await api.createSession({});
    const filler = "x".repeat(64 * 1024);
    const earlier: UIMessage[] = Array.from({ length: 40 }, (_, i) => ({
      id: `old-${i}`,
      role: i % 2 ? "assistant" : "user",
      parts: [{ type: "text", text: `${i} ${filler}` }],
    }));
    const messages = [...earlier, userMessage("m-long", "still here")];
    expect(JSON.stringify(messages).length).toBeGreaterThan(2 * 1024 * 1024);
    const answer = await read(await send(id, messages));
    expect(textOf(answer)).toBe("You said: still here");
    const users = (await api.allEvents(id)).filter((e) => e.author === "user" && e.content?.type === "text");
    expect(users.map((e) => (e.content as { text: string }).text)).toEqual(["still here"]);
  });

  // The two joined-message cases (distinct sessions, each mostly waiting on the slow fake answers) run at once.
  it.concurrent("a message that joins a running turn, then a reload: GET /messages and the resume give one message per answer", async () => {
    const { id } = await api.createSession({});
    const first = (await send(id, [userMessage("m-j1", "slow")])).getReader();
    for (;;) {
      const { value, done } = await first.read();
      if (done) throw new Error("the stream ended before any text");
      if (value.type === "text-delta") break;
    }
    // Another tab's message joins the turn while its first answer streams.
    const joined = (await api.raw("POST", `/v1/sessions/${id}/messages`, { text: "and another thing" })).status;
    expect(joined).toBeLessThan(300);
    await first.cancel().catch(() => undefined);
    // The page reloads once the model call that answers the joined message has started.
    const isJoined = (e: { author: string; content?: { type: string; text?: string } }) =>
      e.author === "user" && e.content?.type === "text" && e.content.text === "and another thing";
    const { events } = await api.waitFor(id, (_s, events) => {
      const at = events.find(isJoined)?.seq;
      return at !== undefined && events.some((e) => e.seq > at && e.actions?.modelRequest !== undefined);
    });
    const joinedSeq = events.find(isJoined)!.seq;
    const reloaded = (await (await api.raw("GET", `/v1/chat/${id}/messages`)).json()) as UIMessage[];
    const chat = new TestChat(reloaded, transport, id);
    await chat.resumeStream();
    await api.waitForIdle(id);
    const afterwards = (await (await api.raw("GET", `/v1/chat/${id}/messages`)).json()) as UIMessage[];
    expect(afterwards.map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "slow"],
      ["assistant", SLOW_ANSWER],
      ["user", "and another thing"],
      ["assistant", JOINED_ANSWER],
    ]);
    expect(afterwards[3]!.id).toBe(`a_${joinedSeq}`);
    // What the reloaded page holds once the resume ends is what the next reload gives: no second copy.
    expect(chat.all.map((m) => [m.id, m.role, textOf(m)])).toEqual(afterwards.map((m) => [m.id, m.role, textOf(m)]));
  });

  it.concurrent("a message that joins a turn waiting for an approval has its own answer: the decision's stream ends before it", async () => {
    const { id } = await api.createSession({ approvals: [{ tool: "write_file" }] });
    const asked = await read(await send(id, [userMessage("m-wj", "write a.txt")]));
    const tool = (asked.parts as Part[]).find((p) => p.type === "dynamic-tool")!;
    expect((await api.raw("POST", `/v1/sessions/${id}/messages`, { text: "and another thing" })).status).toBeLessThan(
      300,
    );
    const answered: UIMessage = {
      ...asked,
      parts: (asked.parts as Part[]).map((p) =>
        p === tool ? { ...p, state: "approval-responded", approval: { id: tool.approval!.id, approved: true } } : p,
      ) as UIMessage["parts"],
    };
    const done = await read(await send(id, [userMessage("m-wj", "write a.txt"), answered]), answered);
    await api.waitForIdle(id);
    const messages = (await (await api.raw("GET", `/v1/chat/${id}/messages`)).json()) as UIMessage[];
    expect(messages.map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "write a.txt"],
      ["assistant", ""],
      ["user", "and another thing"],
      ["assistant", JOINED_ANSWER],
    ]);
    // The page's message is the first answer as GET /messages has it: the call and its outcome, no more.
    expect(done.id).toBe(messages[1]!.id);
    expect(done.parts).toEqual(messages[1]!.parts);
    expect((done.parts as Part[]).find((p) => p.type === "dynamic-tool")).toMatchObject({ state: "output-available" });
  });

  it("bad requests get the contract's errors and append nothing", async () => {
    const { id } = await api.createSession({});
    const before = (await api.getSession(id)).highWater;
    const post = (body: unknown) => api.raw("POST", "/v1/chat", body);
    const noText = await post({ id, messages: [{ id: "u", role: "user", parts: [] }], trigger: "submit-message" });
    expect(noText.status).toBe(400);
    expect(((await noText.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    const assistantLast = await post({
      id,
      messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] }],
    });
    expect(assistantLast.status).toBe(400);
    expect((await post({ messages: [] })).status).toBe(400);
    const other = await post({ id: "0".repeat(64), messages: [userMessage("u", "x")], trigger: "submit-message" });
    expect(other.status).toBe(404);
    expect((await api.raw("GET", `/v1/chat/${"0".repeat(64)}/stream`)).status).toBe(404);
    expect((await api.raw("GET", `/v1/chat/${id}/stream`)).status).toBe(204);
    expect((await api.getSession(id)).highWater).toBe(before);
  });
});
