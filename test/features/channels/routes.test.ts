/**
 * The webhook route's checks before anything is stored (docs/API.md#channels), on the edge with
 * no Worker around it: a bad `CHANNELS` is 503 naming the entry and no value, an unknown channel
 * 404, another method 405, an unproven request 401. The env has no channel object binding: a
 * request that got past the checks would answer 503 for that, so a 401 proves nothing was stored.
 */
import { describe, expect, it } from "vitest";
import { channels } from "../../../src/features/channels";
import { createApp } from "../../../src/http";
import { slackMention, slackSignature } from "../../fakes/chat-platforms";

const SECRETS = { BOT: "xoxb-bot-secret-value", SIGN: "signing-secret-value", TG: "telegram-secret-value" };
const entry = (extra: Record<string, unknown>) => ({
  name: "team",
  kind: "slack",
  botToken: "{{secret:BOT}}",
  signingSecret: "{{secret:SIGN}}",
  actAs: "{{secret:OWNER}}",
  allowUsers: ["U1"],
  ...extra,
});
const envWith = (list: unknown[]) =>
  ({ API_TOKENS: "owner-token", OWNER: "owner-token", ...SECRETS, CHANNELS: JSON.stringify(list) }) as unknown as Env;
const ENV = envWith([
  entry({}),
  { ...entry({ name: "tg", kind: "telegram", secretToken: "{{secret:TG}}" }), signingSecret: undefined },
]);
const app = createApp([channels]);

const post = (path: string, body: string, headers: Record<string, string> = {}, env = ENV) =>
  app.request(path, { method: "POST", body, headers: { "content-type": "application/json", ...headers } }, env);

describe("POST /v1/channels/:name/events", () => {
  const body = slackMention({ eventId: "Ev1", user: "U1", text: "hi", ts: "1.1" });
  const now = Math.floor(Date.now() / 1000);

  it("a bad CHANNELS is 503 not_configured naming the entry, never a value", async () => {
    const res = await post(
      "/v1/channels/team/events",
      body,
      {},
      envWith([entry({ signingSecret: "{{secret:MISSING}}" })]),
    );
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error).toEqual({
      code: "not_configured",
      message: "CHANNELS[0] (team): signingSecret: the secret it names is not set",
    });
  });

  it("an unknown channel is 404, a GET 405 with Allow", async () => {
    expect((await post("/v1/channels/nope/events", body)).status).toBe(404);
    const get = await app.request("/v1/channels/team/events", {}, ENV);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("no bearer token is asked for, but an unsigned or forged request is 401 and stores nothing", async () => {
    const cases: Record<string, string>[] = [
      {},
      { "x-slack-request-timestamp": String(now), "x-slack-signature": slackSignature("wrong", now, body) },
      {
        "x-slack-request-timestamp": String(now - 400),
        "x-slack-signature": slackSignature(SECRETS.SIGN, now - 400, body),
      },
    ];
    for (const headers of cases) {
      const res = await post("/v1/channels/team/events", body, headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await post("/v1/channels/tg/events", "{}", { "x-telegram-bot-api-secret-token": "nope" })).status).toBe(
      401,
    );
    // A well-signed request gets past the checks (here: to the missing binding, 503).
    const signed = {
      "x-slack-request-timestamp": String(now),
      "x-slack-signature": slackSignature(SECRETS.SIGN, now, body),
    };
    expect((await post("/v1/channels/team/events", body, signed)).status).toBe(503);
    const tg = { "x-telegram-bot-api-secret-token": SECRETS.TG };
    const update = JSON.stringify({
      update_id: 1,
      message: { message_id: 1, chat: { id: 1 }, from: { id: 1 }, text: "x" },
    });
    expect((await post("/v1/channels/tg/events", update, tg)).status).toBe(503);
  });

  it("answers Slack's URL check once the signature holds", async () => {
    const check = JSON.stringify({ type: "url_verification", challenge: "abc" });
    const headers = {
      "x-slack-request-timestamp": String(now),
      "x-slack-signature": slackSignature(SECRETS.SIGN, now, check),
    };
    const res = await post("/v1/channels/team/events", check, headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "abc" });
  });
});
