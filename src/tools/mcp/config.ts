/**
 * `MCP_SERVERS` (docs/API.md#mcp-servers): a JSON array of servers, checked once per distinct
 * value. An invalid value is refused at the first request with 503 `not_configured` naming the
 * entry and the field: the deployment never runs half-configured. The message never repeats a
 * value (a URL may hold credentials, a header a token), only where the problem is and what is
 * expected there.
 */

import { z } from "zod";
import { MCP_TASK_TIMEOUT_MS } from "./tasks";

export const MCP_DEFAULT_TIMEOUT_MS = 60_000;

const Effect = z.enum(["read", "idempotent", "write"]);
/** RFC 9110 token: what a header name may be. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SECRET_REF = /\{\{secret:([^{}]*)\}\}/g;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const McpServerSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9_]{1,20}$/),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().regex(HEADER_NAME), z.string()).optional(),
  trust: z.enum(["annotations", "none"]).optional(),
  effects: z.record(z.string(), Effect).optional(),
  timeoutMs: z.number().int().min(1000).max(600_000).optional(),
  tools: z.array(z.string()).optional(),
  auth: z
    .strictObject({
      type: z.literal("oauth"),
      scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).optional(),
      clientId: z.string().min(1).max(2048).optional(),
      clientSecret: z
        .string()
        .regex(/^\{\{secret:[A-Za-z_][A-Za-z0-9_]{0,127}\}\}$/)
        .optional(),
      grant: z.enum(["authorization_code", "client_credentials"]).optional(),
    })
    .refine((a) => a.grant !== "client_credentials" || (a.clientId !== undefined && a.clientSecret !== undefined))
    .optional(),
});

/** What each field must be, said without the value it has. */
const EXPECTED: Record<string, string> = {
  name: "must match [a-z0-9_]{1,20}",
  url: "must be an absolute http or https URL",
  headers: "must be an object of header names (RFC 9110 tokens) to string values",
  trust: 'must be "annotations" or "none"',
  effects: 'must be an object of tool names to "read", "idempotent" or "write"',
  timeoutMs: "must be an integer from 1000 to 600000",
  tools: "must be an array of tool names",
  auth: '{ type: "oauth", scopes?: string[], clientId?: string, clientSecret?: "{{secret:NAME}}", grant?: "authorization_code" | "client_credentials" } (client_credentials needs clientId and clientSecret)',
};

/** OAuth for a server (docs/API.md#mcp-servers-behind-oauth). */
export type McpAuthConfig = {
  type: "oauth";
  scopes: string[];
  clientId: string | null;
  /** The name of the var holding the client secret (`{{secret:NAME}}`). */
  clientSecret: string | null;
  grant: "authorization_code" | "client_credentials";
};

export type McpServerConfig = {
  name: string;
  url: string;
  headers: Record<string, string>;
  trust: "annotations" | "none";
  effects: Record<string, "read" | "idempotent" | "write">;
  timeoutMs: number;
  /** How long a call answered with a task may take in all (docs/API.md#mcp-tasks): `timeoutMs` if set, else 1 hour. */
  taskTimeoutMs?: number;
  tools: string[] | null;
  auth: McpAuthConfig | null;
};

export type McpConfigResult = { ok: true; servers: McpServerConfig[] } | { ok: false; message: string };

const refused = (message: string): McpConfigResult => ({ ok: false, message: `MCP_SERVERS${message}` });

/** Parses and checks `MCP_SERVERS`. Empty or unset: no servers. Pure. */
export function parseMcpServers(raw: string | undefined): McpConfigResult {
  if (raw === undefined || raw.trim() === "") return { ok: true, servers: [] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // V8's message quotes the text around the error: it is not repeated.
    return refused(" is not valid JSON");
  }
  if (!Array.isArray(json)) return refused(" must be a JSON array of servers");
  const servers: McpServerConfig[] = [];
  for (const [i, entry] of json.entries()) {
    const problem = entryProblem(entry);
    if (problem) return refused(`[${i}]${problem}`);
    const s = McpServerSchema.parse(entry);
    if (servers.some((o) => o.name === s.name)) return refused(`[${i}].name: another server has this name`);
    servers.push({
      name: s.name,
      url: s.url,
      headers: s.headers ?? {},
      trust: s.trust ?? "none",
      effects: s.effects ?? {},
      timeoutMs: s.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS,
      taskTimeoutMs: s.timeoutMs ?? MCP_TASK_TIMEOUT_MS,
      tools: s.tools ?? null,
      auth: s.auth
        ? {
            type: "oauth",
            scopes: s.auth.scopes ?? [],
            clientId: s.auth.clientId ?? null,
            clientSecret: s.auth.clientSecret?.slice("{{secret:".length, -2) ?? null,
            grant: s.auth.grant ?? "authorization_code",
          }
        : null,
    });
  }
  return { ok: true, servers };
}

/** Where one entry is wrong (`.field: expected`), or null. */
function entryProblem(entry: unknown): string | null {
  const parsed = McpServerSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path[0];
    if (issue.code === "unrecognized_keys") {
      const [key] = issue.keys;
      const named = key !== undefined && /^[A-Za-z0-9_]{1,40}$/.test(key) ? `"${key}"` : "a field";
      return `: ${named} is not a field of a server (${Object.keys(EXPECTED).join(", ")})`;
    }
    if (typeof field !== "string") return ": must be an object";
    return `.${field}: ${EXPECTED[field] ?? "is invalid"}`;
  }
  const url = new URL(parsed.data.url);
  if (parsed.data.auth && Object.keys(parsed.data.headers ?? {}).some((h) => h.toLowerCase() === "authorization"))
    return ".headers: an Authorization header and auth cannot both be given";
  if (url.username !== "" || url.password !== "")
    return ".url: must not hold credentials (send them in headers, as {{secret:NAME}})";
  for (const [i, value] of Object.values(parsed.data.headers ?? {}).entries()) {
    const where = `.headers (the ${ordinal(i)} header)`;
    if (/[\r\n\0]/.test(value)) return `${where}: its value cannot contain CR, LF or NUL`;
    for (const m of value.matchAll(SECRET_REF))
      if (!SECRET_NAME.test(m[1] ?? "")) return `${where}: {{secret:…}} must name a var ([A-Za-z_][A-Za-z0-9_]*)`;
  }
  return null;
}

function ordinal(i: number): string {
  const n = i + 1;
  return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
}

const cache = new Map<string, McpConfigResult>();

/** `parseMcpServers` of an environment, computed once per distinct value. */
export function mcpConfigOf(env: { MCP_SERVERS?: string }): McpConfigResult {
  const key = env.MCP_SERVERS ?? "";
  let result = cache.get(key);
  if (!result) {
    result = parseMcpServers(env.MCP_SERVERS);
    cache.set(key, result);
  }
  return result;
}

/**
 * The hosts of the configured servers as `HTTP_TOOL_ALLOWED_HOSTS` patterns: `http_fetch` does
 * not reach them unless `HTTP_TOOL_MCP_HOSTS=allow` (docs/API.md#mcp-servers).
 */
export function mcpHostsDeniedToFetch(env: { MCP_SERVERS?: string; HTTP_TOOL_MCP_HOSTS?: unknown }): string[] {
  if (env.HTTP_TOOL_MCP_HOSTS === "allow") return [];
  const config = mcpConfigOf(env);
  return config.ok ? config.servers.map((s) => new URL(s.url).host) : [];
}
