/**
 * The `CHANNELS` var (docs/API.md#channels): a JSON array of channels, each a Slack or Telegram
 * bot whose threads are sessions of one principal. Pure: the env goes in, channels or a problem
 * naming the entry (never a value) come out.
 */
import { z } from "zod";
import { ApprovalRule } from "../../http/session-options";
import { secretRefsIn } from "../../tools/secrets";

const SECRET_REF = z.string().regex(/^\{\{secret:[A-Za-z_][A-Za-z0-9_]{0,127}\}\}$/, "must be {{secret:NAME}}");

const Common = {
  name: z.string().regex(/^[a-z0-9_]{1,20}$/, "must match [a-z0-9_]{1,20}"),
  botToken: SECRET_REF,
  actAs: SECRET_REF,
  allowUsers: z.array(z.string().min(1).max(200)).max(1000),
  approvals: z.array(ApprovalRule).max(100).optional(),
  apiUrl: z.url().optional(),
};

const Entry = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("slack"), signingSecret: SECRET_REF, ...Common }),
  z.strictObject({ kind: z.literal("telegram"), secretToken: SECRET_REF, ...Common }),
]);

export type ChannelKind = "slack" | "telegram";

/** One channel with its secrets resolved (kept inside the Worker and the channel's object). */
export type Channel = {
  name: string;
  kind: ChannelKind;
  botToken: string;
  /** Slack's signing secret or Telegram's secret token: what an inbound request must prove. */
  verifySecret: string;
  /** The bearer token of the principal whose sessions the channel drives. */
  actAs: string;
  allowUsers: string[];
  approvals: z.infer<typeof ApprovalRule>[];
  /** The platform API's base URL (ends with `/`). */
  apiUrl: string;
};

export type ChannelsConfig = { ok: true; channels: Map<string, Channel> } | { ok: false; problem: string };

const DEFAULT_API_URL: Record<ChannelKind, string> = {
  slack: "https://slack.com/api/",
  telegram: "https://api.telegram.org/",
};

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

function secretOf(env: Record<string, unknown>, ref: string): string | undefined {
  const name = secretRefsIn(ref)[0] ?? "";
  const value = env[name];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Where `CHANNELS` is wrong, naming the entry and the field; the message never holds a value. */
export function parseChannels(env: Record<string, unknown>): ChannelsConfig {
  const raw = env.CHANNELS;
  if (raw === undefined || raw === "") return { ok: true, channels: new Map() };
  let json: unknown;
  try {
    json = JSON.parse(String(raw));
  } catch {
    return { ok: false, problem: "CHANNELS: is not JSON" };
  }
  if (!Array.isArray(json)) return { ok: false, problem: "CHANNELS: must be a JSON array" };
  const tokens = new Set(
    String(env.API_TOKENS ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  );
  const channels = new Map<string, Channel>();
  for (const [i, item] of json.entries()) {
    const label = `CHANNELS[${i}]${typeof item?.name === "string" && /^[a-z0-9_]{1,20}$/.test(item.name) ? ` (${item.name})` : ""}`;
    const parsed = Entry.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, problem: `${label}: ${issue?.path.join(".") || "entry"}: ${issue?.message ?? "invalid"}` };
    }
    const e = parsed.data;
    if (channels.has(e.name)) return { ok: false, problem: `${label}: name is used twice` };
    const verifyRef = e.kind === "slack" ? e.signingSecret : e.secretToken;
    const resolved = { botToken: e.botToken, verify: verifyRef, actAs: e.actAs };
    const values: Record<string, string> = {};
    for (const [field, ref] of Object.entries(resolved)) {
      const value = secretOf(env, ref);
      const fieldName = field === "verify" ? (e.kind === "slack" ? "signingSecret" : "secretToken") : field;
      if (value === undefined) return { ok: false, problem: `${label}: ${fieldName}: the secret it names is not set` };
      values[field] = value;
    }
    if (!tokens.has(values.actAs!)) return { ok: false, problem: `${label}: actAs: is not one of API_TOKENS` };
    channels.set(e.name, {
      name: e.name,
      kind: e.kind,
      botToken: values.botToken!,
      verifySecret: values.verify!,
      actAs: values.actAs!,
      allowUsers: e.allowUsers,
      approvals: e.approvals ?? [],
      apiUrl: withSlash(e.apiUrl ?? DEFAULT_API_URL[e.kind]),
    });
  }
  return { ok: true, channels };
}
