/**
 * Secrets by reference (docs/API.md#secrets): the log, the model's context and every API answer
 * hold `{{secret:NAME}}`, never the value. The value is put in at call time, only where the
 * deployment allows it, and taken out of every tool result before it is committed.
 */
import { isUrlAllowed, parseHostPattern } from "./hosts";
import { mcpConfigOf } from "./mcp/config";

/** Any `{{secret:…}}` reference, well-formed or not (a malformed one is a refused use, never sent as text). */
const SECRET_REF = /\{\{secret:([^{}]*)\}\}/g;
/** The names a reference may hold: those of Worker vars and secrets. */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The names referenced in `text`, in order, repeats included. */
export function secretRefsIn(text: string): string[] {
  return [...text.matchAll(SECRET_REF)].map((m) => m[1] ?? "");
}

/**
 * Replaces each `{{secret:NAME}}` in `text` by `lookup(NAME)`; the first name that is malformed
 * or that `lookup` does not give is returned instead, and nothing is replaced.
 */
export function substituteSecrets(
  text: string,
  lookup: (name: string) => string | undefined,
): { ok: true; text: string } | { ok: false; name: string } {
  for (const name of secretRefsIn(text)) {
    if (!SECRET_NAME.test(name) || lookup(name) === undefined) return { ok: false, name };
  }
  return { ok: true, text: text.replace(SECRET_REF, (_m, name: string) => lookup(name) as string) };
}

/** A secret shorter than this is refused at start-up, and never redacted (it would mangle ordinary text). */
export const MIN_SECRET_CHARS = 8;

/**
 * `value` with every occurrence of a secret's value, in every string and object key, replaced by
 * `[secret:NAME]`: raw, JSON-escaped (`\/`, `\uXXXX`), percent-encoded (`+` for a space, either
 * case of hex) or any mix of these, and base64 or base64url (alone, or inside a longer encoded
 * text such as `Basic base64(user:secret)`). Longer values first, so a value that contains another
 * is replaced whole. Values shorter than 8 characters are left alone.
 */
export function redactSecrets(value: unknown, secrets: Record<string, string>): unknown {
  const pairs = Object.entries(secrets)
    .filter(([, v]) => v.length >= MIN_SECRET_CHARS)
    .sort(([, a], [, b]) => b.length - a.length)
    .map(([name, secret]) => [new RegExp(secretPattern(secret), "g"), `[secret:${name}]`] as const);
  if (pairs.length === 0) return value;
  const redact = (text: string): string => {
    let out = text;
    for (const [pattern, mark] of pairs) out = out.replace(pattern, mark);
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [redact(k), walk(x)]));
    }
    return v;
  };
  return walk(value);
}

const UTF8 = new TextEncoder();
const JSON_SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A regex source matching every form of `secret` that `redactSecrets` replaces. */
function secretPattern(secret: string): string {
  const perChar = [...secret].map((c) => {
    const forms = [escapeRegex(c), [...UTF8.encode(c)].map((b) => `%${hexPattern(b, 2)}`).join("")];
    if (c === " ") forms.push("\\+");
    if (Object.hasOwn(JSON_SHORT, c)) forms.push(escapeRegex(JSON_SHORT[c]!));
    const units = c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)];
    forms.push(units.map((u) => `\\\\u${hexPattern(u, 4)}`).join(""));
    return `(?:${forms.join("|")})`;
  });
  const encoded = [...new Set(base64Forms(UTF8.encode(secret)))].sort((a, b) => b.length - a.length).map(escapeRegex);
  return [...encoded, perChar.join("")].join("|");
}

/**
 * The base64 and base64url texts that only `bytes` decide: the whole encoding (with and without
 * padding) and, for each of the 3 offsets the bytes can start at inside a longer text, the
 * characters between the partial ones at either end.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const shifted = new Uint8Array(k + bytes.length);
    shifted.set(bytes, k);
    const b64 = btoa(String.fromCharCode(...shifted));
    if (k === 0) out.push(b64, b64.replace(/=+$/, ""));
    out.push(b64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  return out.flatMap((t) => [t, t.replaceAll("+", "-").replaceAll("/", "_")]);
}

function hexPattern(n: number, width: number): string {
  return [...n.toString(16).padStart(width, "0")]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join("");
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/**
 * `HTTP_TOOL_SECRETS` (`NAME=hostpattern,…`): the hosts each name may be sent to, with the
 * patterns of `HTTP_TOOL_ALLOWED_HOSTS`. An entry without `=` is one more pattern of the name
 * before it (`NAME=host1,host2`); a name listed twice may go to the hosts of both.
 */
export function parseSecretHosts(csv?: string): Record<string, string[]> {
  return readSecretHosts(csv).hosts;
}

/** What is wrong with `HTTP_TOOL_SECRETS` (which entry, what), or null: nothing of it is ignored. */
export function secretHostsProblem(csv?: string): string | null {
  return readSecretHosts(csv).problem;
}

function readSecretHosts(csv?: string): { hosts: Record<string, string[]>; problem: string | null } {
  const hosts: Record<string, string[]> = {};
  let problem: string | null = null;
  let name: string | null = null;
  for (const [i, raw] of (csv ?? "").split(",").entries()) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    const where = `HTTP_TOOL_SECRETS (entry ${i + 1})`;
    if (eq >= 0) {
      const n = entry.slice(0, eq).trim();
      name = SECRET_NAME.test(n) ? n : null;
      if (!name) problem ??= `${where}: a secret name must match [A-Za-z_][A-Za-z0-9_]*`;
    } else if (name === null) {
      problem ??= `${where}: a host pattern must follow NAME=`;
      continue;
    }
    const pattern = (eq >= 0 ? entry.slice(eq + 1) : entry).trim().toLowerCase();
    if (!parseHostPattern(pattern)) {
      problem ??= `${where}: not a host pattern (host[:port], *.domain, * or port *)`;
      continue;
    }
    if (name) hosts[name] = [...(Object.hasOwn(hosts, name) ? (hosts[name] ?? []) : []), pattern];
  }
  return { hosts, problem };
}

/** Whether `http_fetch` may send secret `name` to `url` (its host matches a pattern the name is bound to). */
export function secretAllowedFor(hosts: Record<string, string[]>, name: string, url: URL): boolean {
  return Object.hasOwn(hosts, name) && isUrlAllowed(url, hosts[name] ?? []);
}

/** The secret names a deployment uses: those of `HTTP_TOOL_SECRETS` and those referenced in `MCP_SERVERS` headers. */
export function secretNamesInUse(env: object): string[] {
  const names = new Set(Object.keys(parseSecretHosts(stringVar(env, "HTTP_TOOL_SECRETS"))));
  // An invalid MCP_SERVERS is refused where it is read; it names no secret here.
  const mcp = mcpConfigOf({ MCP_SERVERS: stringVar(env, "MCP_SERVERS") });
  for (const server of mcp.ok ? mcp.servers : []) {
    for (const v of Object.values(server.headers)) for (const name of secretRefsIn(v)) names.add(name);
    const clientSecret = server.auth?.clientSecret;
    if (clientSecret) for (const name of secretRefsIn(clientSecret)) names.add(name);
  }
  return [...names].filter((n) => SECRET_NAME.test(n));
}

/** The values of `names` that are set (strings, non-empty) in `env`, by name. */
export function secretValues(env: object, names: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = stringVar(env, name);
    if (v) out[name] = v;
  }
  return out;
}

function stringVar(env: object, name: string): string | undefined {
  const v = Object.hasOwn(env, name) ? (env as Record<string, unknown>)[name] : undefined;
  return typeof v === "string" ? v : undefined;
}
