/**
 * What the channel feature needs of a chat platform (docs/API.md#channels), one shape for Slack
 * and Telegram: an inbound request verified and read into an `Inbound`, and a post sent or edited
 * with what a retry must know (`Retry-After` on 429).
 */

/** Where a session answers: the platform's chat and the thread's root in it. */
export type ThreadRef = {
  /** The thread's key in the channel: `<chat>:<root>`, or `<chat>` where the chat is the thread. */
  id: string;
  chat: string;
  root: string | null;
};

/** An inbound request, read after its signature held. */
export type Inbound =
  | { kind: "challenge"; challenge: string }
  | { kind: "ignored"; why: string }
  | {
      kind: "message";
      /** The platform's id of the event: with the channel's name, the idempotency key. */
      eventId: string;
      thread: ThreadRef;
      user: string;
      text: string;
      /** A mention or a direct message (starts a session); else only a reply in a known thread. */
      starts: boolean;
    }
  | {
      kind: "click";
      eventId: string;
      thread: ThreadRef;
      user: string;
      /** The card's id (see ./cards.ts) and the button pressed. */
      cardId: string;
      decision: "approve" | "reject";
      /** Telegram's callback query id, answered so the client stops its spinner. */
      callbackId?: string;
    };

/** An approval card: a title, a body and two buttons carrying the card's id. */
export type Card = { cardId: string; title: string; body: string };

/** One post to a thread: text, or a card; `edit` names the message to replace (progress). */
export type Post = { thread: ThreadRef; text: string; card?: Card; edit?: string };

export type Sent =
  | { ok: true; messageId: string }
  | {
      ok: false;
      /** The platform's `Retry-After` in ms (a 429), else null. */
      retryAfterMs: number | null;
      /** Retrying cannot help (4xx other than 429, or the platform said so). */
      permanent: boolean;
      message: string;
    };

/** The platform port a channel's object posts through. */
export type PlatformClient = {
  send(post: Post): Promise<Sent>;
  /** Acknowledges a Telegram button press (nothing on Slack). */
  acknowledge?(callbackId: string, text: string): Promise<void>;
};

export const APPROVE = "approve";
export const REJECT = "reject";

/** `Retry-After` as ms: seconds or an HTTP date; absent or unreadable → null. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Whether a failed post is worth retrying: network errors, 429 and 5xx are; other 4xx are not. */
export function permanentStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 429 && status !== 408;
}
