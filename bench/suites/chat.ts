/**
 * The chat stream's cost (docs/API.md#chat-ai-sdk-ui-message-stream): for the same commit, when does the first UI part it
 * becomes reach a `useChat` client (`DefaultChatTransport` over `POST /v1/chat`, through the
 * Worker's socket to the object), against the WebSocket `event` frame a program connected straight
 * to the session gets (the typed client)? Both run side by side in this process on the same turns,
 * so the machine's noise falls on both; two commits per turn are measured: the model's
 * `functionCall` (→ `tool-input-available`) and `turnClose` (→ `finish`).
 */
import { DefaultChatTransport, type UIMessage } from "ai";
import { scratchDir, TOKEN } from "../lib/bench";
import { scriptedAgent, startFakeOpenAI } from "../lib/fake-openai";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { clientFor, watch } from "../lib/sockets";
import { fmt, percentile, type Report } from "../lib/stats";
import { startWrangler, testConfigPath } from "../lib/wrangler";

/**
 * `performance.now()` at arrival on each channel, and when the message was sent (the commit's own
 * time is not usable: a Durable Object's clock only moves at I/O, so `at` can lag this process's).
 */
type Arrival = { ws: number; chat: number; sentAt: number };
type P = { p50: number; p99: number };
type Channels = { webSocketEventFrame: P; firstUiPart: P; extra: P };
export type ChatResults = { turns: number; functionCall: Channels; turnClose: Channels };

/** One turn: a socket on the session, then the chat's send; arrival times of the same two commits. */
async function oneTurn(base: string, transport: DefaultChatTransport<UIMessage>, i: number) {
  const { id, highWater } = await clientFor(base).createSession({});
  const call: Arrival = { ws: 0, chat: 0, sentAt: 0 };
  const close: Arrival = { ws: 0, chat: 0, sentAt: 0 };
  let closed: () => void = () => {};
  const wsDone = new Promise<void>((done) => {
    closed = done;
  });
  const w = watch(base, id, {
    after: highWater,
    deflate: false,
    onEvent: (event, now) => {
      if (event.content?.type === "functionCall") call.ws = now;
      if (event.actions?.turnClose) {
        close.ws = now;
        closed();
      }
    },
  });
  await w.ready;
  call.sentAt = close.sentAt = performance.now();
  const stream = await transport.sendMessages({
    chatId: id,
    messages: [{ id: `m-${i}`, role: "user", parts: [{ type: "text", text: "list the files" }] }],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  for await (const chunk of stream) {
    const now = performance.now();
    if (chunk.type === "tool-input-available") call.chat = now;
    if (chunk.type === "finish") close.chat = now;
  }
  await wsDone;
  w.connection.close();
  return { call, close };
}

export async function runChat(turns = 100): Promise<ChatResults> {
  const fake = await startFakeOpenAI(
    scriptedAgent((step) => (step === 0 ? { toolCalls: [{ name: "list_files", args: {} }] } : { text: "done" })),
  );
  const worker = await startWrangler({
    persistTo: scratchDir("hw-chat-bench-"),
    config: testConfigPath(),
    vars: { API_TOKENS: TOKEN, MODEL_PROVIDER: "openai", MODEL_BASE_URL: fake.url, MODEL_API_KEY: "x" },
    env: QUIET_WRANGLER_ENV,
  });
  try {
    const transport = new DefaultChatTransport({
      api: `${worker.url}/v1/chat`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    for (let i = 0; i < 5; i++) await oneTurn(worker.url, transport, -1 - i); // warm
    const rows: { call: Arrival; close: Arrival }[] = [];
    for (let i = 0; i < turns; i++) rows.push(await oneTurn(worker.url, transport, i));
    const channels = (pick: (r: (typeof rows)[number]) => Arrival): Channels => {
      const q = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
      const a = rows.map(pick);
      return {
        webSocketEventFrame: q(a.map((x) => x.ws - x.sentAt)),
        firstUiPart: q(a.map((x) => x.chat - x.sentAt)),
        extra: q(a.map((x) => x.chat - x.ws)),
      };
    };
    return { turns, functionCall: channels((r) => r.call), turnClose: channels((r) => r.close) };
  } finally {
    await worker.stop();
    await fake.close();
  }
}

export function reportChat(r: ChatResults, { info }: Report): void {
  for (const [label, c] of [
    ["functionCall → tool-input-available", r.functionCall],
    ["turnClose → finish", r.turnClose],
  ] as const)
    info(
      `chat: first UI part vs the WebSocket frame of the same commit (${label}), extra ms p50 / p99, ${r.turns} turns`,
      `${fmt(c.extra.p50)} / ${fmt(c.extra.p99)}`,
      "",
      `after send: frame ${fmt(c.webSocketEventFrame.p50)} / ${fmt(c.webSocketEventFrame.p99)}, UI part ${fmt(c.firstUiPart.p50)} / ${fmt(c.firstUiPart.p99)}`,
    );
}
