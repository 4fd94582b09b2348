/**
 * Fake chat platforms on 127.0.0.1 for the channel tests (docs/API.md#channels): a Slack Web API
 * (`chat.postMessage`, `chat.update`) and a Telegram Bot API (`sendMessage`, `editMessageText`,
 * `answerCallbackQuery`) that record every call and can be told to answer the next calls with an
 * error (429 with `Retry-After`, say); and the platforms' side of a webhook: signed Slack events
 * and interactivity payloads, Telegram updates with the secret token.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type PlatformCall = {
  method: string;
  body: Record<string, unknown>;
  auth: string | null;
  status: number;
  at: number;
  /** The id of the message a successful post made (Slack `ts`, Telegram `message_id`). */
  messageId?: string;
};

export type FakePlatform = {
  /** The API base URL to put in the channel's `apiUrl`. */
  url: string;
  calls: PlatformCall[];
  /** The next `times` calls of `method` answer `status` (with `Retry-After: retryAfter` on a 429). */
  failNext(method: string, times: number, status: number, retryAfter?: number): void;
  /** Resolves with the calls once `pred` holds for them (polls the record, no timing in the test). */
  waitFor(pred: (calls: PlatformCall[]) => boolean, timeoutMs?: number): Promise<PlatformCall[]>;
  close(): Promise<void>;
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** Slack's form bodies hold JSON in some fields (`blocks`): decoded here for the assertions. */
function decodeBody(text: string, contentType: string): Record<string, unknown> {
  if (contentType.includes("application/json")) return JSON.parse(text || "{}");
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    try {
      out[k] = k === "blocks" ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

async function startFake(kind: "slack" | "telegram"): Promise<FakePlatform> {
  const calls: PlatformCall[] = [];
  const failures = new Map<string, { times: number; status: number; retryAfter?: number }>();
  let nextId = 1;
  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const method = path.split("/").at(-1) ?? "";
    const body = decodeBody(text, req.headers["content-type"] ?? "");
    const failure = failures.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      calls.push({ method, body, auth: req.headers.authorization ?? null, status: failure.status, at: Date.now() });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (failure.retryAfter !== undefined) headers["retry-after"] = String(failure.retryAfter);
      res.writeHead(failure.status, headers);
      const error =
        kind === "slack"
          ? { ok: false, error: failure.status === 429 ? "ratelimited" : "fatal_error" }
          : {
              ok: false,
              error_code: failure.status,
              description: "Too Many Requests",
              parameters: { retry_after: failure.retryAfter },
            };
      res.end(JSON.stringify(error));
      return;
    }
    const id = nextId++;
    const messageId =
      kind === "slack"
        ? method === "chat.update"
          ? String(body.ts)
          : `1800000000.${String(id).padStart(6, "0")}`
        : method === "editMessageText"
          ? String(body.message_id)
          : String(1000 + id);
    calls.push({ method, body, auth: req.headers.authorization ?? null, status: 200, at: Date.now(), messageId });
    res.writeHead(200, { "content-type": "application/json" });
    if (kind === "slack") res.end(JSON.stringify({ ok: true, channel: body.channel, ts: messageId }));
    else
      res.end(
        JSON.stringify({
          ok: true,
          result: method === "answerCallbackQuery" ? true : { message_id: Number(messageId) },
        }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: kind === "slack" ? `http://127.0.0.1:${port}/api/` : `http://127.0.0.1:${port}/`,
    calls,
    failNext(method, times, status, retryAfter) {
      failures.set(method, { times, status, ...(retryAfter !== undefined ? { retryAfter } : {}) });
    },
    async waitFor(pred, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (!pred(calls)) {
        if (Date.now() > until)
          throw new Error(`fake ${kind}: timed out; calls: ${JSON.stringify(calls).slice(0, 3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return calls;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const startFakeSlack = () => startFake("slack");
export const startFakeTelegram = () => startFake("telegram");

/** Slack's request signature: `v0=` HMAC-SHA256 of `v0:<ts>:<body>` with the signing secret. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** POSTs a body to the webhook as Slack does: signed now (or as told), JSON or a form. */
export function sendSlack(
  webhook: string,
  secret: string,
  body: string,
  opts: { form?: boolean; timestamp?: number; signature?: string; retryNum?: number } = {},
): Promise<Response> {
  const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(webhook, {
    method: "POST",
    headers: {
      "content-type": opts.form ? "application/x-www-form-urlencoded" : "application/json",
      "x-slack-request-timestamp": String(ts),
      "x-slack-signature": opts.signature ?? slackSignature(secret, ts, body),
      ...(opts.retryNum ? { "x-slack-retry-num": String(opts.retryNum), "x-slack-retry-reason": "http_timeout" } : {}),
    },
    body,
  });
}

/** An Events API envelope of an `app_mention` (a thread reply if `threadTs`). */
export function slackMention(a: {
  eventId: string;
  user: string;
  text: string;
  ts: string;
  channel?: string;
  threadTs?: string;
}) {
  return JSON.stringify({
    type: "event_callback",
    team_id: "T1",
    api_app_id: "A1",
    event_id: a.eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: "app_mention",
      user: a.user,
      text: `<@UBOT> ${a.text}`,
      ts: a.ts,
      channel: a.channel ?? "C1",
      ...(a.threadTs ? { thread_ts: a.threadTs } : {}),
    },
  });
}

/** A plain message in a channel thread (no mention). */
export function slackThreadReply(a: {
  eventId: string;
  user: string;
  text: string;
  ts: string;
  threadTs: string;
  channel?: string;
}) {
  return JSON.stringify({
    type: "event_callback",
    team_id: "T1",
    event_id: a.eventId,
    event: {
      type: "message",
      channel_type: "channel",
      user: a.user,
      text: a.text,
      ts: a.ts,
      thread_ts: a.threadTs,
      channel: a.channel ?? "C1",
    },
  });
}

/** An interactivity payload: a click on a button of a message in a thread, as a form body. */
export function slackClick(a: {
  user: string;
  actionId: string;
  value: string;
  threadTs: string;
  actionTs: string;
  channel?: string;
}) {
  const payload = {
    type: "block_actions",
    user: { id: a.user, username: a.user },
    trigger_id: `trigger-${a.actionTs}`,
    team: { id: "T1" },
    channel: { id: a.channel ?? "C1" },
    container: {
      type: "message",
      channel_id: a.channel ?? "C1",
      message_ts: "1800000000.000009",
      thread_ts: a.threadTs,
    },
    message: { ts: "1800000000.000009", thread_ts: a.threadTs },
    actions: [{ type: "button", action_id: a.actionId, block_id: "b", value: a.value, action_ts: a.actionTs }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** POSTs a Telegram update with the secret token. */
export function sendTelegram(webhook: string, secretToken: string | null, update: unknown): Promise<Response> {
  return fetch(webhook, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(secretToken ? { "x-telegram-bot-api-secret-token": secretToken } : {}),
    },
    body: JSON.stringify(update),
  });
}
