/**
 * Slack through the Chat SDK's own pieces that run in workerd (docs/API.md#channels): the
 * signature check and payload parser of `@chat-adapter/slack/webhook` (Web Crypto), the
 * fetch-based Web API calls of `@chat-adapter/slack/api` (which take our `apiUrl`), and the card
 * model of `@chat-adapter/slack/blocks` rendered as Block Kit. The adapter's main entry is not
 * used: it loads `@slack/web-api` and `@slack/socket-mode` (axios, ws, Node's http), and it posts
 * at once, where every post here goes through the channel's durable outbox.
 */
import { postSlackMessage, SlackApiError, updateSlackMessage } from "@chat-adapter/slack/api";
import { cardToSlackBlocks, type SlackCardElement } from "@chat-adapter/slack/blocks";
import { parseSlackWebhookBody, verifySlackSignature } from "@chat-adapter/slack/webhook";
import type { Channel } from "./config";
import {
  APPROVE,
  type Card,
  type Inbound,
  type Post,
  permanentStatus,
  REJECT,
  retryAfterMs,
  type Sent,
} from "./platform";

/** Slack's window for a request's timestamp (its own docs: 5 minutes). */
const MAX_SKEW_SECONDS = 300;

/** True when the body is signed with the channel's signing secret within the window. */
export async function verifySlack(channel: Channel, body: string, headers: Headers, now: number): Promise<boolean> {
  try {
    await verifySlackSignature(body, headers, {
      signingSecret: channel.verifySecret,
      maxSkewSeconds: MAX_SKEW_SECONDS,
      now: () => now,
    });
    return true;
  } catch {
    return false;
  }
}

/** `<@U123>` mentions out of a message's text (the bot's own, at least). */
const stripMentions = (text: string) => text.replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, "").trim();

/** A verified Slack body, read: events, interactivity (button clicks) and the URL check. */
export function readSlack(body: string, headers: Headers): Inbound {
  let p: ReturnType<typeof parseSlackWebhookBody>;
  try {
    p = parseSlackWebhookBody(body, { contentType: headers.get("content-type"), headers });
  } catch {
    return { kind: "ignored", why: "unreadable payload" };
  }
  if (p.kind === "url_verification") return { kind: "challenge", challenge: p.challenge };
  if (p.kind === "app_mention" || p.kind === "direct_message") {
    if (p.kind === "direct_message" && (p.botId || p.subtype))
      return { kind: "ignored", why: "not a person's message" };
    if (!p.userId || !p.eventId) return { kind: "ignored", why: "no user or event id" };
    return {
      kind: "message",
      eventId: p.eventId,
      thread: { id: `${p.channelId}:${p.threadTs}`, chat: p.channelId, root: p.threadTs },
      user: p.userId,
      text: stripMentions(p.text),
      starts: true,
    };
  }
  if (p.kind === "block_actions") {
    const action = p.actions.find((a) => a.actionId === APPROVE || a.actionId === REJECT);
    const channelId = p.channelId ?? p.continuation?.channelId;
    const root = p.threadTs ?? p.continuation?.threadTs;
    if (!action?.value || !channelId || !root) return { kind: "ignored", why: "not an approval button" };
    const actionTs = typeof action.raw.action_ts === "string" ? action.raw.action_ts : "";
    return {
      kind: "click",
      eventId: `action:${p.userId}:${actionTs || p.triggerId || action.value}`,
      thread: { id: `${channelId}:${root}`, chat: channelId, root },
      user: p.userId,
      cardId: action.value,
      decision: action.actionId === APPROVE ? "approve" : "reject",
    };
  }
  if (p.kind === "unsupported") return readThreadReply(p.raw);
  return { kind: "ignored", why: p.kind };
}

/** A plain message in a channel thread (no mention): a reply, if the thread is a session's. */
function readThreadReply(raw: unknown): Inbound {
  const env = raw as { event_id?: unknown; event?: Record<string, unknown> };
  const e = env.event;
  if (e?.type !== "message" || e.bot_id || e.subtype) return { kind: "ignored", why: "not a thread reply" };
  const [chat, root, user, text] = [e.channel, e.thread_ts, e.user, e.text];
  if (typeof chat !== "string" || typeof root !== "string" || typeof user !== "string" || typeof text !== "string")
    return { kind: "ignored", why: "not a thread reply" };
  if (typeof env.event_id !== "string") return { kind: "ignored", why: "no event id" };
  return {
    kind: "message",
    eventId: env.event_id,
    thread: { id: `${chat}:${root}`, chat, root },
    user,
    text: stripMentions(text),
    starts: false,
  };
}

/** The approval card in the SDK's card model: a title, the call, Approve and Reject. */
export function slackCard(card: Card): SlackCardElement {
  return {
    type: "card",
    title: card.title,
    children: [
      { type: "text", content: card.body },
      {
        type: "actions",
        children: [
          { type: "button", id: APPROVE, label: "Approve", style: "primary", value: card.cardId },
          { type: "button", id: REJECT, label: "Reject", style: "danger", value: card.cardId },
        ],
      },
    ],
  };
}

/** Posts (or edits) through Slack's Web API at the channel's `apiUrl`. */
export function slackClient(channel: Channel): { send(post: Post): Promise<Sent> } {
  return {
    async send(post) {
      let retryAfter: string | null = null;
      let httpStatus: number | undefined;
      // The SDK's calls take a fetch: this one keeps the status and `Retry-After` for the outbox
      // (a 429 whose body is not JSON fails in the SDK before its error carries the status).
      const fetchKeepingRetry: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        httpStatus = res.status;
        retryAfter = res.headers.get("retry-after");
        return res;
      };
      const common = {
        token: channel.botToken,
        apiUrl: channel.apiUrl,
        fetch: fetchKeepingRetry,
        channel: post.thread.chat,
        text: post.text,
        ...(post.card ? { blocks: cardToSlackBlocks(slackCard(post.card)) } : {}),
      };
      try {
        const r = post.edit
          ? await updateSlackMessage({ ...common, ts: post.edit })
          : await postSlackMessage({ ...common, ...(post.thread.root ? { threadTs: post.thread.root } : {}) });
        return { ok: true, messageId: r.id };
      } catch (err) {
        const status = httpStatus !== undefined && httpStatus >= 400 ? httpStatus : undefined;
        // `ok: false` with HTTP 200 (channel_not_found, invalid_auth…) will say the same again.
        const platformError = err instanceof SlackApiError && status === undefined;
        return {
          ok: false,
          retryAfterMs: status === 429 ? retryAfterMs(retryAfter, Date.now()) : null,
          permanent: platformError || permanentStatus(status),
          message: err instanceof Error ? err.message : String(err),
        };
      }
    },
  };
}
