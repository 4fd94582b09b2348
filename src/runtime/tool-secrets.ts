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

export function callSecrets(env: Record<string, unknown>): CallSecrets {
  const names = new Set(secretNamesInUse(env));
  return {
    read: (name) => {
      const value = secretValues(env, [name])[name];
      if (value !== undefined) names.add(name);
      return value;
    },
    httpHosts: parseSecretHosts(typeof env.HTTP_TOOL_SECRETS === "string" ? env.HTTP_TOOL_SECRETS : undefined),
    values: () => secretValues(env, names),
  };
}
