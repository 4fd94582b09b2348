/**
 * A Telegram channel against a fake Bot API on 127.0.0.1 (docs/API.md#channels), on a real
 * `wrangler dev` with the demo model: the secret token refused when wrong (401, nothing
 * appended), a chat's message starting its session and answered there, an update retried
 * appending nothing, progress as edits of one message no sooner than 5 s apart, an approval as
 * an inline keyboard whose press decides once, and `stop` in the chat.
 *
 *   npx vitest run --project e2e test/features/channels/telegram.e2e.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, type Event } from "../../e2e/harness/api";
import { makePersistDir, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";
import { type FakePlatform, type PlatformCall, sendTelegram, startFakeTelegram } from "../../fakes/chat-platforms";

const TOKEN = "telegram-owner-token";
const SECRET = "telegram-secret-token-1";
const ALICE = 1001;

let tg: FakePlatform;
let worker: Wrangler;
let persistTo: string;
let hook: string;
const api = () => createApi(worker.url, TOKEN);
let update = 500;

const message = (chat: number, text: string, from = ALICE) => ({
  update_id: ++update,
  message: { message_id: update, chat: { id: chat, type: "private" }, from: { id: from }, text },
});
const press = (chat: number, data: string, from = ALICE) => ({
  update_id: ++update,
  callback_query: { id: `q${update}`, from: { id: from }, data, message: { message_id: 1, chat: { id: chat } } },
});
const inChat = (chat: number, calls = tg.calls) =>
  calls.filter((c) => String(c.body.chat_id) === String(chat) && c.status === 200);
const sent = (chat: number, calls = tg.calls) => inChat(chat, calls).filter((c) => c.method === "sendMessage");
const texts = (calls: PlatformCall[]) => calls.map((c) => String(c.body.text));
const users = (events: Event[]) => events.filter((e) => e.author === "user" && e.content?.type === "text");

async function sessionOfChat(chat: number) {
  const { sessions } = await api().listSessions();
  return (sessions as { id: string; channel?: { thread: string; kind: string } }[]).filter(
    (s) => s.channel?.thread === String(chat),
  );
}

beforeAll(async () => {
  tg = await startFakeTelegram();
  persistTo = makePersistDir("hw-telegram-");
  worker = await startWrangler({
    persistTo,
    vars: {
      API_TOKENS: TOKEN,
      TG_BOT_TOKEN: "123456:fake-telegram-bot",
      TG_SECRET: SECRET,
      CHANNEL_TOKEN: TOKEN,
      HW_DEMO_CHUNK_DELAY_MS: "0",
      CHANNELS: JSON.stringify([
        {
          name: "tg",
          kind: "telegram",
          botToken: "{{secret:TG_BOT_TOKEN}}",
          secretToken: "{{secret:TG_SECRET}}",
          actAs: "{{secret:CHANNEL_TOKEN}}",
          allowUsers: [String(ALICE)],
          approvals: [{ tool: "read_file" }, { tool: "search_files" }],
          apiUrl: tg.url,
        },
      ]),
    },
  });
  hook = `${worker.url}/v1/channels/tg/events`;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await tg?.close();
  rmSync(persistTo, { recursive: true, force: true });
});

describe("a Telegram channel", () => {
  it("a wrong or missing secret token is 401 and appends nothing", async () => {
    expect((await sendTelegram(hook, "wrong-token", message(77, "hello"))).status).toBe(401);
    expect((await sendTelegram(hook, null, message(77, "hello"))).status).toBe(401);
    expect(await sessionOfChat(77)).toEqual([]);
    expect(inChat(77)).toEqual([]);
  });

  it("a message starts the chat's session; progress is one message edited; the keyboard decides once", async () => {
    const chat = 42;
    const first = message(chat, "remember the milk");
    expect((await sendTelegram(hook, SECRET, first)).status).toBe(200);
    // Telegram retries an update it thinks was not delivered, with the same update_id.
    expect((await sendTelegram(hook, SECRET, first)).status).toBe(200);
    const cards = (calls = tg.calls) => sent(chat, calls).filter((c) => c.body.reply_markup !== undefined);
    const keysOf = (c: PlatformCall) =>
      (c.body.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard[0]!;
    await tg.waitFor((calls) => cards(calls).length === 1);
    const card1 = cards()[0]!;
    expect(keysOf(card1).map((b) => b.text)).toEqual(["Approve", "Reject"]);
    expect(String(card1.body.text)).toContain("read_file");
    const [session] = await sessionOfChat(chat);
    expect(session).toMatchObject({ channel: { name: "tg", kind: "telegram", thread: String(chat) } });
    // Someone not allowed presses first: refused, nothing decided.
    await sendTelegram(hook, SECRET, press(chat, keysOf(card1)[0]!.callback_data, 666));
    await tg.waitFor((calls) => texts(sent(chat, calls)).some((t) => t.includes("only take requests")));
    expect((await api().getSession(session!.id)).pendingApprovals).toHaveLength(1);
    const approve1 = press(chat, keysOf(card1)[0]!.callback_data);
    await sendTelegram(hook, SECRET, approve1);
    await sendTelegram(hook, SECRET, approve1); // the same update again: nothing more
    // The turn goes on to the next call needing approval (search_files): a second card.
    await tg.waitFor((calls) => cards(calls).length === 2);
    const card2 = cards()[1]!;
    expect(String(card2.body.text)).toContain("search_files");
    // Progress: one message, then edits of that same message, the first no sooner than 5 s on.
    const progress = sent(chat).filter((c) => String(c.body.text).startsWith("Working:"));
    expect(progress).toHaveLength(1);
    const edit = await tg
      .waitFor((calls) => inChat(chat, calls).some((c) => c.method === "editMessageText"), 30_000)
      .then(() => inChat(chat).find((c) => c.method === "editMessageText")!);
    expect(String(edit.body.message_id)).toBe(progress[0]!.messageId);
    expect(edit.body.text).toMatch(/^Working: /);
    expect(edit.at - progress[0]!.at).toBeGreaterThanOrEqual(5000);
    await sendTelegram(hook, SECRET, press(chat, keysOf(card2)[0]!.callback_data));
    // A press on the first card, already decided: stale, decides nothing.
    await sendTelegram(hook, SECRET, press(chat, keysOf(card1)[1]!.callback_data));
    await tg.waitFor((calls) => texts(sent(chat, calls)).some((t) => t.startsWith("This card is stale")));
    const { events } = await api().waitForIdle(session!.id);
    expect(events.filter((e) => e.actions?.permissionDecision).map((e) => e.actions!.permissionDecision)).toMatchObject(
      [{ decision: "approve" }, { decision: "approve" }],
    );
    expect(users(events)).toHaveLength(1);
    expect(users(events)[0]).toMatchObject({ source: "channel:tg", content: { text: "remember the milk" } });
    await tg.waitFor((calls) => texts(sent(chat, calls)).some((t) => t.startsWith("[demo model]")));
    expect(texts(sent(chat)).filter((t) => t.startsWith("Approved"))).toHaveLength(2);
    expect(sent(chat).filter((c) => String(c.body.text).startsWith("Working:"))).toHaveLength(1);
  });

  it("stop in the chat stops the turn, and the stop is posted", async () => {
    const chat = 43;
    await sendTelegram(hook, SECRET, message(chat, "remember the eggs"));
    await tg.waitFor((calls) => sent(chat, calls).some((c) => c.body.reply_markup !== undefined));
    await sendTelegram(hook, SECRET, message(chat, "stop"));
    await tg.waitFor((calls) => texts(sent(chat, calls)).some((t) => t.startsWith("Stopped.")));
    const [session] = await sessionOfChat(chat);
    const { events } = await api().waitForIdle(session!.id);
    expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "stopped" });
    await sendTelegram(hook, SECRET, message(chat, "stop"));
    await tg.waitFor((calls) => texts(sent(chat, calls)).includes("Nothing is running."));
  });
});
