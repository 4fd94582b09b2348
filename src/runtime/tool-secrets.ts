/** The secrets one tool call may use and must not leak (docs/API.md#secrets). */
import { parseSecretHosts, secretNamesInUse, secretValues } from "../tools";

export type CallSecrets = {
  /** `ctx.secret(name)`: the var's value; the name joins what is redacted from this call's result. */
  read: (name: string) => string | undefined;
  /** `HTTP_TOOL_SECRETS`, parsed. */
  httpHosts: Record<string, string[]>;
  /** The values to redact: every secret the deployment uses, and each the call read. */
  values: () => Record<string, string>;
};

/** What the deployment's vars say, read once per env (a session's env does not change). */
const parsed = new WeakMap<object, { names: readonly string[]; httpHosts: Record<string, string[]> }>();

function parsedOf(env: Record<string, unknown>) {
  let p = parsed.get(env);
  if (!p) {
    const hosts = parseSecretHosts(typeof env.HTTP_TOOL_SECRETS === "string" ? env.HTTP_TOOL_SECRETS : undefined);
    for (const list of Object.values(hosts)) Object.freeze(list);
    p = { names: Object.freeze(secretNamesInUse(env)), httpHosts: Object.freeze(hosts) };
    parsed.set(env, p);
  }
  return p;
}

export function callSecrets(env: Record<string, unknown>): CallSecrets {
  const { names: inUse, httpHosts } = parsedOf(env);
  // The names read by the call join the deployment's; most calls read none and there are none.
  let names: Set<string> | null = null;
  return {
    read: (name) => {
      const value = secretValues(env, [name])[name];
      if (value !== undefined) {
        names ??= new Set(inUse);
        names.add(name);
      }
      return value;
    },
    httpHosts,
    values: () => (names === null && inUse.length === 0 ? {} : secretValues(env, names ?? inUse)),
  };
}
