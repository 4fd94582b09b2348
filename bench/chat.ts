/**
 * The chat stream's cost (issue 20, `node bench/chat.mjs`): for the same commit, when does the
 * first UI part it becomes reach a `useChat` client (`DefaultChatTransport` over `POST /v1/chat`,
 * through the Worker's socket to the object), against the WebSocket `event` frame a program
 * connected straight to the session gets? Both clients run side by side in this process on the
 * same turns, so the machine's noise falls on both; two commits per turn are measured: the
 * model's `functionCall` (→ `tool-input-available`) and `turnClose` (→ `finish`).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DefaultChatTransport, type UIMessage } from "ai";
import WebSocket from "ws";
import { scriptedAgent, startFakeOpenAI } from "../test/e2e/harness/fake-openai";
import { makePersistDir, REPO_ROOT, startWrangler, withoutBuild } from "../test/e2e/harness/wrangler";

const TOKEN = "bench-chat-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const TURNS = Number(process.env.HW_BENCH_CHAT_TURNS ?? 100);

function privateConfig(): string {
  const text = withoutBuild(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"))
    .replace(/^main = "([^"]+)"$/m, (_m, p: string) => `main = ${JSON.stringify(resolve(REPO_ROOT, p))}`)
    .replace(/^directory = "([^"]+)"$/m, (_m, p: string) => `directory = ${JSON.stringify(resolve(REPO_ROOT, p))}`);
  const dir = join(tmpdir(), `hw-chat-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "wrangler.toml");
  writeFileSync(file, text);
  return file;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number) => Math.round(x * 100) / 100;

/**
 * `performance.now()` at arrival on each channel, and when the message was sent (the commit's own
 * time is not usable: a Durable Object's clock only moves at I/O, so `at` can lag this process's).
 */
type Arrival = { ws: number; chat: number; sentAt: number };

/** One turn: a socket on the session, then the chat's send; arrival times of the same two commits. */
async function oneTurn(base: string, transport: DefaultChatTransport<UIMessage>, i: number) {
  const created = await fetch(`${base}/v1/sessions`, { method: "POST", headers: auth, body: "{}" });
  const { id, highWater } = (await created.json()) as { id: string; highWater: number };
  // No permessage-deflate: Node's zlib inflates on its thread pool, which would delay the socket's frames.
  const ws = new WebSocket(`${base.replace("http", "ws")}/v1/sessions/${id}/ws?after=${highWater}`, {
    headers: auth,
    perMessageDeflate: false,
  });
  const call: Arrival = { ws: 0, chat: 0, sentAt: 0 };
  const close: Arrival = { ws: 0, chat: 0, sentAt: 0 };
  const wsDone = new Promise<void>((done, fail) => {
    ws.on("error", fail);
    ws.on("message", (data) => {
      const now = performance.now();
      const frame = JSON.parse(String(data)) as {
        type: string;
        event?: { content?: { type: string }; actions?: object };
      };
      if (frame.type !== "event") return;
      if (frame.event?.content?.type === "functionCall") call.ws = now;
      if (frame.event?.actions && "turnClose" in frame.event.actions) {
        close.ws = now;
        done();
      }
    });
  });
  await new Promise<void>((r) => ws.once("message", () => r())); // ready
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
  ws.close();
  return { call, close };
}

export async function main() {
  const fake = await startFakeOpenAI(
    scriptedAgent((step) => (step === 0 ? { toolCalls: [{ name: "list_files", args: {} }] } : { text: "done" })),
  );
  const worker = await startWrangler({
    persistTo: makePersistDir("hw-chat-bench-"),
    config: privateConfig(),
    vars: { API_TOKENS: TOKEN, MODEL_PROVIDER: "openai", MODEL_BASE_URL: fake.url, MODEL_API_KEY: "x" },
    env: { WRANGLER_SEND_METRICS: "false" },
  });
  try {
    const transport = new DefaultChatTransport({ api: `${worker.url}/v1/chat`, headers: auth });
    for (let i = 0; i < 5; i++) await oneTurn(worker.url, transport, -1 - i); // warm
    const rows: { call: Arrival; close: Arrival }[] = [];
    for (let i = 0; i < TURNS; i++) rows.push(await oneTurn(worker.url, transport, i));
    const stat = (pick: (r: (typeof rows)[number]) => Arrival) => {
      const q = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p99: round(percentile(xs, 99)) });
      const a = rows.map(pick);
      return {
        webSocketEventFrame: q(a.map((x) => x.ws - x.sentAt)),
        firstUiPart: q(a.map((x) => x.chat - x.sentAt)),
        extra: q(a.map((x) => x.chat - x.ws)),
      };
    };
    const result = {
      bench: "chat-first-part",
      turns: TURNS,
      unit: "ms after the message was sent; extra = the UI part minus the event frame of the same commit, per turn",
      functionCallToToolInputAvailable: stat((r) => r.call),
      turnCloseToFinish: stat((r) => r.close),
      at: new Date().toISOString(),
    };
    console.log(JSON.stringify(result, null, 2));
    const dir = join(REPO_ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "chat-latest.json"), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    await worker.stop();
    await fake.close();
  }
}
