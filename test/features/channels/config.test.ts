/**
 * `CHANNELS` (docs/API.md#channels): each kind of bad entry is a problem naming the entry and the
 * field, and never holding a secret's value.
 */
import { describe, expect, it } from "vitest";
import { parseChannels } from "../../../src/features/channels/config";

const SECRETS = { BOT: "xoxb-bot-token-value", SIGN: "signing-secret-value", ACT: "owner-token-value" };
const slack = {
  name: "team",
  kind: "slack",
  botToken: "{{secret:BOT}}",
  signingSecret: "{{secret:SIGN}}",
  actAs: "{{secret:ACT}}",
  allowUsers: ["U1"],
};
const env = (channels: unknown, extra: Record<string, unknown> = {}) => ({
  API_TOKENS: "other,owner-token-value",
  ...SECRETS,
  CHANNELS: typeof channels === "string" ? channels : JSON.stringify(channels),
  ...extra,
});

function problemOf(channels: unknown, extra: Record<string, unknown> = {}): string {
  const r = parseChannels(env(channels, extra));
  if (r.ok) throw new Error("expected a problem");
  for (const value of Object.values(SECRETS)) expect(r.problem).not.toContain(value);
  return r.problem;
}

describe("CHANNELS", () => {
  it("absent or empty: no channels", () => {
    expect(parseChannels({})).toEqual({ ok: true, channels: new Map() });
    expect(parseChannels({ CHANNELS: "" })).toEqual({ ok: true, channels: new Map() });
  });

  it("a good Slack and Telegram entry resolve their secrets; apiUrl defaults to the platform's", () => {
    const telegram = {
      ...slack,
      name: "tg",
      kind: "telegram",
      secretToken: "{{secret:SIGN}}",
      signingSecret: undefined,
    };
    const r = parseChannels(env([slack, { ...telegram, apiUrl: "http://127.0.0.1:9/tg" }]));
    if (!r.ok) throw new Error(r.problem);
    expect(r.channels.get("team")).toMatchObject({
      kind: "slack",
      botToken: SECRETS.BOT,
      verifySecret: SECRETS.SIGN,
      actAs: SECRETS.ACT,
      apiUrl: "https://slack.com/api/",
      approvals: [],
    });
    expect(r.channels.get("tg")).toMatchObject({ kind: "telegram", apiUrl: "http://127.0.0.1:9/tg/" });
  });

  it.each([
    ["not JSON", "[{", /^CHANNELS: is not JSON$/],
    ["not an array", { name: "x" }, /^CHANNELS: must be a JSON array$/],
    ["a bad name", [{ ...slack, name: "Team!" }], /^CHANNELS\[0\]: name:/],
    ["an unknown kind", [{ ...slack, kind: "irc" }], /^CHANNELS\[0\] \(team\): kind:/],
    [
      "a literal token instead of a reference",
      [{ ...slack, botToken: "xoxb-literal" }],
      /^CHANNELS\[0\] \(team\): botToken: must be \{\{secret:NAME\}\}$/,
    ],
    [
      "a secret that is not set",
      [{ ...slack, signingSecret: "{{secret:NOPE}}" }],
      /^CHANNELS\[0\] \(team\): signingSecret: the secret it names is not set$/,
    ],
    [
      "actAs not among API_TOKENS",
      [{ ...slack, actAs: "{{secret:BOT}}" }],
      /^CHANNELS\[0\] \(team\): actAs: is not one of API_TOKENS$/,
    ],
    ["a Telegram entry with a signing secret", [{ ...slack, kind: "telegram" }], /^CHANNELS\[0\] \(team\): /],
    ["an unknown field", [{ ...slack, extra: 1 }], /^CHANNELS\[0\] \(team\): /],
    ["a name used twice", [slack, slack], /^CHANNELS\[1\] \(team\): name is used twice$/],
    ["allowUsers missing", [{ ...slack, allowUsers: undefined }], /^CHANNELS\[0\] \(team\): allowUsers:/],
    ["a bad approval rule", [{ ...slack, approvals: [{ tool: 1 }] }], /^CHANNELS\[0\] \(team\): approvals\.0\.tool:/],
    ["a bad apiUrl", [{ ...slack, apiUrl: "not a url" }], /^CHANNELS\[0\] \(team\): apiUrl:/],
  ])("%s is a problem naming the entry", (_what, channels, expected) => {
    expect(problemOf(channels)).toMatch(expected);
  });
});
