/**
 * `A2A_AGENTS` (docs/API.md#a2a-agents): a JSON array of remote agents, checked once per distinct
 * value. An invalid value is refused at the first request with 503 `not_configured` naming the
 * entry and the field, never a value (a URL may hold credentials, a header a token). Pure.
 */
import { z } from "zod";

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SECRET_REF = /\{\{secret:([^{}]*)\}\}/g;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const AgentSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9_]{1,20}$/),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().regex(HEADER_NAME), z.string()).optional(),
  effect: z.enum(["write", "idempotent"]).optional(),
});

const EXPECTED: Record<string, string> = {
  name: "must match [a-z0-9_]{1,20}",
  url: "must be the absolute http or https URL of the agent card",
  headers: "must be an object of header names (RFC 9110 tokens) to string values",
  effect: 'must be "write" or "idempotent"',
};

export type A2aAgent = {
  name: string;
  /** The agent card's URL. */
  url: string;
  headers: Record<string, string>;
  effect: "write" | "idempotent";
};

export type A2aConfig = { ok: true; agents: A2aAgent[] } | { ok: false; message: string };

const refused = (message: string): A2aConfig => ({ ok: false, message: `A2A_AGENTS${message}` });

/** Parses and checks `A2A_AGENTS`. Empty or unset: no agents. */
export function parseA2aAgents(raw: string | undefined): A2aConfig {
  if (raw === undefined || raw.trim() === "") return { ok: true, agents: [] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return refused(" is not valid JSON");
  }
  if (!Array.isArray(json)) return refused(" must be a JSON array of agents");
  const agents: A2aAgent[] = [];
  for (const [i, entry] of json.entries()) {
    const problem = entryProblem(entry);
    if (problem) return refused(`[${i}]${problem}`);
    const a = AgentSchema.parse(entry);
    if (agents.some((o) => o.name === a.name)) return refused(`[${i}].name: another agent has this name`);
    agents.push({ name: a.name, url: a.url, headers: a.headers ?? {}, effect: a.effect ?? "write" });
  }
  return { ok: true, agents };
}

function entryProblem(entry: unknown): string | null {
  const parsed = AgentSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path[0];
    if (issue.code === "unrecognized_keys") {
      const [key] = issue.keys;
      const named = key !== undefined && /^[A-Za-z0-9_]{1,40}$/.test(key) ? `"${key}"` : "a field";
      return `: ${named} is not a field of an agent (${Object.keys(EXPECTED).join(", ")})`;
    }
    if (typeof field !== "string") return ": must be an object";
    return `.${field}: ${EXPECTED[field] ?? "is invalid"}`;
  }
  const url = new URL(parsed.data.url);
  if (url.username !== "" || url.password !== "")
    return ".url: must not hold credentials (send them in headers, as {{secret:NAME}})";
  for (const [i, value] of Object.values(parsed.data.headers ?? {}).entries()) {
    const where = `.headers (header ${i + 1})`;
    if (/[\r\n\0]/.test(value)) return `${where}: its value cannot contain CR, LF or NUL`;
    for (const m of value.matchAll(SECRET_REF))
      if (!SECRET_NAME.test(m[1] ?? "")) return `${where}: {{secret:…}} must name a var ([A-Za-z_][A-Za-z0-9_]*)`;
  }
  return null;
}

const cache = new Map<string, A2aConfig>();

/** `parseA2aAgents` of an environment, computed once per distinct value. */
export function a2aConfigOf(env: { A2A_AGENTS?: unknown }): A2aConfig {
  const key = typeof env.A2A_AGENTS === "string" ? env.A2A_AGENTS : "";
  let result = cache.get(key);
  if (!result) {
    result = parseA2aAgents(key);
    cache.set(key, result);
  }
  return result;
}

/** The configured agents' hosts: `http_fetch` refuses them (the agent is reached through its tool). */
export function a2aHosts(env: { A2A_AGENTS?: unknown }): string[] {
  const config = a2aConfigOf(env);
  return config.ok ? config.agents.map((a) => new URL(a.url).host) : [];
}

/** The names of the secrets the agents' headers use (they are redacted from what the agents answer). */
export function a2aSecretNames(agent: A2aAgent): string[] {
  return Object.values(agent.headers).flatMap((v) => [...v.matchAll(SECRET_REF)].map((m) => m[1] ?? ""));
}
