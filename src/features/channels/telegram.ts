/**
 * Telegram's Bot API (docs/API.md#channels), by fetch: `@chat-adapter/telegram` is one class that
 * loads the whole `chat` runtime (remark, unified, Node's crypto) and posts at once; here every
 * post goes through the channel's outbox, so the three calls it needs are made directly.
 * A private chat (or a forum topic) is one thread; the secret token proves a webhook.
 */
import type { Channel } from "./config";
import { APPROVE, type Inbound, type Post, permanentStatus, REJECT, retryAfterMs, type Sent } from "./platform";

/** Constant-time equality of two strings (the secret token). */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

export function verifyTelegram(channel: Channel, headers: Headers): boolean {
  const token = headers.get("x-telegram-bot-api-secret-token");
  return token !== null && sameSecret(token, channel.verifySecret);
}

type TgChat = { id: number | string };
type TgUser = { id: number | string; username?: string };
type TgMessage = { message_id: number; chat: TgChat; from?: TgUser; text?: string; message_thread_id?: number };
type TgUpdate = {
  update_id?: number;
  message?: TgMessage;
  callback_query?: { id: string; from: TgUser; data?: string; message?: TgMessage };
};

function threadOf(m: TgMessage) {
  const chat = String(m.chat.id);
  const root = m.message_thread_id === undefined ? null : String(m.message_thread_id);
  return { id: root ? `${chat}:${root}` : chat, chat, root };
}

/** A verified update, read. A user is named by id; `allowUsers` may list ids or usernames (see ./handle.ts). */
export function readTelegram(body: string): Inbound {
  let u: TgUpdate;
  try {
    u = JSON.parse(body) as TgUpdate;
  } catch {
    return { kind: "ignored", why: "unreadable update" };
  }
  if (typeof u.update_id !== "number") return { kind: "ignored", why: "no update id" };
  const eventId = String(u.update_id);
  const q = u.callback_query;
  if (q?.message && q.data) {
    const [action, cardId] = q.data.split(":");
    if ((action !== APPROVE && action !== REJECT) || !cardId) return { kind: "ignored", why: "not an approval button" };
    return {
      kind: "click",
      eventId,
      thread: threadOf(q.message),
      user: String(q.from.id),
      cardId,
      decision: action,
      callbackId: q.id,
    };
  }
  const m = u.message;
  if (!m?.from || typeof m.text !== "string") return { kind: "ignored", why: "not a text message" };
  // The bot receives only what is addressed to it (private chats; groups in privacy mode): each starts or continues its thread.
  return { kind: "message", eventId, thread: threadOf(m), user: String(m.from.id), text: m.text.trim(), starts: true };
}

/** Sends or edits through the Bot API at the channel's `apiUrl` (`<apiUrl>bot<token>/<method>`). */
export function telegramClient(channel: Channel) {
  const call = async (method: string, body: Record<string, unknown>): Promise<Sent> => {
    try {
      const res = await fetch(`${channel.apiUrl}bot${channel.botToken}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json().catch(() => null)) as {
        ok?: boolean;
        result?: { message_id?: number };
        description?: string;
        parameters?: { retry_after?: number };
      } | null;
      if (res.ok && json?.ok) return { ok: true, messageId: String(json.result?.message_id ?? "") };
      const fromBody = json?.parameters?.retry_after;
      return {
        ok: false,
        retryAfterMs:
          res.status === 429
            ? (retryAfterMs(res.headers.get("retry-after"), Date.now()) ??
              (fromBody !== undefined ? fromBody * 1000 : null))
            : null,
        permanent: permanentStatus(res.status),
        message: `Telegram ${method} returned HTTP ${res.status}${json?.description ? `: ${json.description}` : ""}`,
      };
    } catch (err) {
      return {
        ok: false,
        retryAfterMs: null,
        permanent: false,
        message: err instanceof Error ? err.message : String(err),
      };
    }
  };
  return {
    send(post: Post): Promise<Sent> {
      const markup = post.card
        ? {
            reply_markup: {
              inline_keyboard: [
                [
                  { text: "Approve", callback_data: `${APPROVE}:${post.card.cardId}` },
                  { text: "Reject", callback_data: `${REJECT}:${post.card.cardId}` },
                ],
              ],
            },
          }
        : {};
      const text = post.card ? `${post.card.title}\n${post.card.body}` : post.text;
      if (post.edit) return call("editMessageText", { chat_id: post.thread.chat, message_id: Number(post.edit), text });
      return call("sendMessage", {
        chat_id: post.thread.chat,
        text,
        ...(post.thread.root ? { message_thread_id: Number(post.thread.root) } : {}),
        ...markup,
      });
    },
    async acknowledge(callbackId: string, text: string): Promise<void> {
      await call("answerCallbackQuery", { callback_query_id: callbackId, text });
    },
  };
}
