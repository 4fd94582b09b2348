/**
 * Reading and proving inbound requests (docs/API.md#channels): Slack's v0 signature within 5
 * minutes, its events and button clicks; Telegram's secret token and its updates.
 */
import { describe, expect, it } from "vitest";
import type { Channel } from "../../../src/features/channels/config";
import { readSlack, verifySlack } from "../../../src/features/channels/slack";
import { readTelegram, sameSecret, verifyTelegram } from "../../../src/features/channels/telegram";
import { slackClick, slackMention, slackSignature, slackThreadReply } from "../../fakes/chat-platforms";

const channel = (kind: "slack" | "telegram"): Channel => ({
  name: "team",
  kind,
  botToken: "bot",
  verifySecret: "the-secret-value",
  actAs: "owner",
  allowUsers: ["U1"],
  approvals: [],
  apiUrl: "http://127.0.0.1:1/",
});

const signed = (body: string, ts: number, secret = "the-secret-value") =>
  new Headers({ "x-slack-request-timestamp": String(ts), "x-slack-signature": slackSignature(secret, ts, body) });

describe("Slack", () => {
  const now = 1_800_000_000_000;
  const ts = now / 1000;
  const body = slackMention({ eventId: "Ev1", user: "U1", text: "hello", ts: "1.1" });

  it("a body signed with the signing secret within 5 minutes holds; anything else does not", async () => {
    expect(await verifySlack(channel("slack"), body, signed(body, ts), now)).toBe(true);
    expect(await verifySlack(channel("slack"), body, signed(body, ts - 299), now)).toBe(true);
    expect(await verifySlack(channel("slack"), body, signed(body, ts - 301), now)).toBe(false);
    expect(await verifySlack(channel("slack"), body, signed(body, ts, "another-secret"), now)).toBe(false);
    expect(await verifySlack(channel("slack"), `${body} `, signed(body, ts), now)).toBe(false);
    expect(await verifySlack(channel("slack"), body, new Headers(), now)).toBe(false);
  });

  it("a mention starts a thread keyed by channel and root; a thread reply continues it", () => {
    const json = new Headers({ "content-type": "application/json" });
    expect(readSlack(body, json)).toEqual({
      kind: "message",
      eventId: "Ev1",
      thread: { id: "C1:1.1", chat: "C1", root: "1.1" },
      user: "U1",
      text: "hello",
      starts: true,
    });
    const reply = slackThreadReply({ eventId: "Ev2", user: "U1", text: "more", ts: "1.2", threadTs: "1.1" });
    expect(readSlack(reply, json)).toMatchObject({
      kind: "message",
      thread: { id: "C1:1.1" },
      starts: false,
      text: "more",
    });
    const bot = JSON.stringify({ ...JSON.parse(reply), event: { ...JSON.parse(reply).event, bot_id: "B1" } });
    expect(readSlack(bot, json)).toMatchObject({ kind: "ignored" });
    expect(readSlack(JSON.stringify({ type: "url_verification", challenge: "c" }), json)).toEqual({
      kind: "challenge",
      challenge: "c",
    });
  });

  it("a button click names the card and the decision", () => {
    const form = new Headers({ "content-type": "application/x-www-form-urlencoded" });
    const click = slackClick({ user: "U1", actionId: "reject", value: "abcd", threadTs: "1.1", actionTs: "2.2" });
    expect(readSlack(click, form)).toEqual({
      kind: "click",
      eventId: "action:U1:2.2",
      thread: { id: "C1:1.1", chat: "C1", root: "1.1" },
      user: "U1",
      cardId: "abcd",
      decision: "reject",
    });
    const other = slackClick({ user: "U1", actionId: "something", value: "abcd", threadTs: "1.1", actionTs: "2.2" });
    expect(readSlack(other, form)).toMatchObject({ kind: "ignored" });
  });
});

describe("Telegram", () => {
  it("the secret token must match exactly", () => {
    const h = (v?: string) => new Headers(v === undefined ? {} : { "x-telegram-bot-api-secret-token": v });
    expect(verifyTelegram(channel("telegram"), h("the-secret-value"))).toBe(true);
    expect(verifyTelegram(channel("telegram"), h("the-secret-valuE"))).toBe(false);
    expect(verifyTelegram(channel("telegram"), h("the-secret-value2"))).toBe(false);
    expect(verifyTelegram(channel("telegram"), h())).toBe(false);
    expect(sameSecret("", "")).toBe(true);
  });

  it("a message and a button press, by update id", () => {
    const msg = { update_id: 7, message: { message_id: 3, chat: { id: 42 }, from: { id: 9 }, text: " hi " } };
    expect(readTelegram(JSON.stringify(msg))).toEqual({
      kind: "message",
      eventId: "7",
      thread: { id: "42", chat: "42", root: null },
      user: "9",
      text: "hi",
      starts: true,
    });
    const press = {
      update_id: 8,
      callback_query: {
        id: "q1",
        from: { id: 9 },
        data: "approve:abcd",
        message: { message_id: 5, chat: { id: 42 }, message_thread_id: 11 },
      },
    };
    expect(readTelegram(JSON.stringify(press))).toEqual({
      kind: "click",
      eventId: "8",
      thread: { id: "42:11", chat: "42", root: "11" },
      user: "9",
      cardId: "abcd",
      decision: "approve",
      callbackId: "q1",
    });
    expect(readTelegram("{")).toMatchObject({ kind: "ignored" });
    expect(readTelegram(JSON.stringify({ update_id: 9, edited_message: {} }))).toMatchObject({ kind: "ignored" });
  });
});
