/**
 * Secrets by reference (docs/API.md#secrets): the log, the model's context and every API answer
 * hold `{{secret:NAME}}`, never the value. The value is put in at call time, only where the
 * deployment allows it, and taken out of every tool result before it is committed.
 */
import { isUrlAllowed, parseAllowedHosts } from "./hosts";

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

/**
 * `value` with every occurrence of a secret's value, in every string and object key, replaced by
 * `[secret:NAME]`. Longer values first, so a value that contains another is replaced whole.
 */
export function redactSecrets(value: unknown, secrets: Record<string, string>): unknown {
  const pairs = Object.entries(secrets)
    .filter(([, v]) => v.length > 0)
    .sort(([, a], [, b]) => b.length - a.length);
  if (pairs.length === 0) return value;
  const redact = (text: string): string => {
    let out = text;
    for (const [name, secret] of pairs) if (out.includes(secret)) out = out.split(secret).join(`[secret:${name}]`);
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

/**
 * `HTTP_TOOL_SECRETS` (`NAME=hostpattern,…`): the hosts each name may be sent to, with the
 * patterns of `HTTP_TOOL_ALLOWED_HOSTS`. A name listed twice may go to either host.
 */
export function parseSecretHosts(csv?: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of (csv ?? "").split(",")) {
    const eq = entry.indexOf("=");
    if (eq < 0) continue;
    const name = entry.slice(0, eq).trim();
    const pattern = parseAllowedHosts(entry.slice(eq + 1))[0];
    if (!SECRET_NAME.test(name) || !pattern) continue;
    out[name] = [...(Object.hasOwn(out, name) ? (out[name] ?? []) : []), pattern];
  }
  return out;
}

/** Whether `http_fetch` may send secret `name` to `url` (its host matches a pattern the name is bound to). */
export function secretAllowedFor(hosts: Record<string, string[]>, name: string, url: URL): boolean {
  return Object.hasOwn(hosts, name) && isUrlAllowed(url, hosts[name] ?? []);
}

/** The secret names a deployment uses: those of `HTTP_TOOL_SECRETS` and those referenced in `MCP_SERVERS` headers. */
export function secretNamesInUse(env: object): string[] {
  const names = new Set(Object.keys(parseSecretHosts(stringVar(env, "HTTP_TOOL_SECRETS"))));
  const mcp = stringVar(env, "MCP_SERVERS");
  if (mcp) {
    try {
      const servers = JSON.parse(mcp) as unknown;
      for (const server of Array.isArray(servers) ? servers : []) {
        const headers = (server as { headers?: unknown } | null)?.headers;
        if (headers === null || typeof headers !== "object") continue;
        for (const v of Object.values(headers as Record<string, unknown>))
          if (typeof v === "string") for (const name of secretRefsIn(v)) names.add(name);
      }
    } catch {
      // An invalid MCP_SERVERS is refused where it is read; it names no secret here.
    }
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
