/**
 * `POST /v1/channels/:name/events` (docs/API.md#channels): the platform's webhook. No bearer
 * token: the platform's signature is checked before anything in the body is read, and an
 * event is only stored in the channel's object, which handles it after this answered (Slack
 * wants an answer within 3 s). Also the session's `bind` operation, which records its thread.
 */
import { ApiError, MAX_BODY_BYTES } from "../../contract";
import { resource } from "../../http/routing";
import type { EdgeApp } from "../../http/types";
import type { EventDraft } from "../../log";
import type { Admitted } from "../../session/admission";
import { parseChannels } from "./config";
import type { Inbound } from "./platform";
import type { Binding } from "./relay";
import { BIND_KEY } from "./reports";
import { readSlack, verifySlack } from "./slack";
import { readTelegram, verifyTelegram } from "./telegram";

export const EVENTS_PATH = "/v1/channels/:name/events";

async function readBody(req: Request): Promise<string> {
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES) throw new ApiError("payload_too_large", `body over ${MAX_BODY_BYTES} bytes`);
  const text = await req.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES)
    throw new ApiError("payload_too_large", `body over ${MAX_BODY_BYTES} bytes`);
  return text;
}

export function channelRoutes(app: EdgeApp): void {
  resource(app, EVENTS_PATH, {
    POST: async (c) => {
      const config = parseChannels(c.env as unknown as Record<string, unknown>);
      if (!config.ok) throw new ApiError("not_configured", config.problem);
      const channel = config.channels.get(c.req.param("name") ?? "");
      if (!channel) throw new ApiError("not_found", "unknown channel");
      const headers = c.req.raw.headers;
      if (channel.kind === "telegram" && !verifyTelegram(channel, headers))
        throw new ApiError("unauthorized", "the request is not signed by the platform");
      const body = await readBody(c.req.raw);
      if (channel.kind === "slack" && !(await verifySlack(channel, body, headers, Date.now())))
        throw new ApiError("unauthorized", "the request is not signed by the platform");
      const inbound: Inbound = channel.kind === "slack" ? readSlack(body, headers) : readTelegram(body);
      if (inbound.kind === "challenge") return c.json({ challenge: inbound.challenge });
      if (inbound.kind === "ignored") return c.json({ ok: true });
      const ns = c.env.CHANNEL_OBJECTS;
      if (!ns) throw new ApiError("not_configured", "the CHANNEL_OBJECTS binding is missing");
      await ns.get(ns.idFromName(channel.name)).receive(channel.name, `ch:${channel.name}:${inbound.eventId}`, inbound);
      return c.json({ ok: true });
    },
  });
}

/** The `bind` operation: records the session's thread once (a hidden `stateDelta.channelThread`). */
export function bindThread({ runtime }: Admitted, input: Binding): { bound: boolean } {
  const s = runtime.require();
  if (s.features?.channels) return { bound: false };
  const draft: EventDraft = {
    author: "user",
    modelVisibility: "hidden",
    actions: { stateDelta: { [BIND_KEY]: input } },
  };
  runtime.commit([draft]);
  return { bound: true };
}
