/**
 * Which providers are configured, and with whose credentials (docs/API.md §1, §7.23). Pure:
 * it reads Worker vars and never calls a provider. Each provider's key comes only from its
 * own vars (the default's from `MODEL_*`), so a key is never handed to another endpoint.
 */
import { type ModelConfig, PROVIDERS, type ProviderName } from "./types";

export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The model id each provider uses when `MODEL_NAME` is not set. */
export const DEFAULT_MODEL_NAMES: Record<ProviderName, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  "workers-ai": "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
  demo: "demo",
};

/** docs/API.md §1: tokens reserved for output when `MODEL_MAX_OUTPUT_TOKENS` is not set. */
export function defaultMaxOutputTokens(contextWindow: number): number {
  return Math.min(8192, Math.floor(contextWindow / 4));
}

/** The Worker vars this module reads (a structural slice of `Env`). */
export type ModelEnv = {
  MODEL_PROVIDER?: string;
  MODEL_BASE_URL?: string;
  MODEL_API_KEY?: string;
  MODEL_NAME?: string;
  MODEL_CONTEXT_WINDOW?: string | number;
  MODEL_MAX_OUTPUT_TOKENS?: string | number;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  /** The Workers AI binding; only its presence matters here. */
  AI?: unknown;
};

/** Where one provider is reached; only that provider's own key. */
export type ProviderCredentials = { baseUrl?: string; apiKey?: string };

export type ProviderTable = {
  /** The default provider actually in use (after a fallback to `demo`). */
  defaultProvider: ProviderName;
  /** Configured providers with their credentials; providers absent here are refused. */
  credentials: Partial<Record<ProviderName, ProviderCredentials>>;
  /** Why the configured default could not be used, when it fell back to `demo`. */
  fallbackReason?: string;
};

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}

/**
 * The configured providers (docs/API.md §1): the default with `MODEL_*`, others with their own
 * vars, `workers-ai` where `AI` is bound, `demo` always. An unknown `MODEL_PROVIDER` is a
 * configuration error and throws; a known one without its credentials falls back to `demo`.
 */
export function resolveProviders(env: ModelEnv): ProviderTable {
  const named = nonEmpty(env.MODEL_PROVIDER) ?? (nonEmpty(env.MODEL_BASE_URL) ? "openai" : "demo");
  if (!isProviderName(named)) throw new Error(`MODEL_PROVIDER must be one of ${PROVIDERS.join(", ")}; got "${named}"`);
  const own = ownCredentials(env);
  const credentials: ProviderTable["credentials"] = { demo: {} };
  for (const p of PROVIDERS) if (p !== named && own[p]) credentials[p] = own[p];
  const fromDefault = defaultCredentials(named, env);
  if ("missing" in fromDefault) {
    return { defaultProvider: "demo", credentials, fallbackReason: `MODEL_PROVIDER=${named} ${fromDefault.missing}` };
  }
  credentials[named] = fromDefault.credentials;
  return { defaultProvider: named, credentials };
}

/** The credentials of `provider`, or null when it is not configured (a session may not choose it). */
export function credentialsFor(env: ModelEnv, provider: ProviderName): ProviderCredentials | null {
  return resolveProviders(env).credentials[provider] ?? null;
}

/** `GET /v1/providers` (docs/API.md §7.23): the configured providers only, the default first. */
export function describeProviders(env: ModelEnv) {
  const table = resolveProviders(env);
  const defaultModel = resolveDefaultModel(env);
  const names = PROVIDERS.filter((p) => table.credentials[p]).sort(
    (a, b) => Number(b === table.defaultProvider) - Number(a === table.defaultProvider),
  );
  return {
    providers: names.map((name) => ({
      name,
      isDefault: name === table.defaultProvider,
      defaultModel: name === table.defaultProvider ? defaultModel.name : DEFAULT_MODEL_NAMES[name],
      demo: name === "demo",
    })),
  };
}

/**
 * The session default model from Worker vars (docs/API.md §1). Empty strings count as unset;
 * a non-positive number is a configuration error and throws. `MODEL_NAME` does not apply
 * to a fallback to `demo`.
 */
export function resolveDefaultModel(env: ModelEnv): ModelConfig {
  const table = resolveProviders(env);
  const provider = table.defaultProvider;
  const contextWindow = positiveInt(env.MODEL_CONTEXT_WINDOW, "MODEL_CONTEXT_WINDOW") ?? DEFAULT_CONTEXT_WINDOW;
  const maxOutputTokens =
    positiveInt(env.MODEL_MAX_OUTPUT_TOKENS, "MODEL_MAX_OUTPUT_TOKENS") ?? defaultMaxOutputTokens(contextWindow);
  const name = table.fallbackReason ? undefined : nonEmpty(env.MODEL_NAME);
  return { provider, name: name ?? DEFAULT_MODEL_NAMES[provider], contextWindow, maxOutputTokens };
}

/** One line for the start log: the default provider, and why it fell back if it did. */
export function describeDefaultProvider(env: ModelEnv): string {
  const table = resolveProviders(env);
  const configured = PROVIDERS.filter((p) => table.credentials[p]).join(", ");
  if (table.fallbackReason)
    return `highwater: ${table.fallbackReason}; the default provider is demo (configured: ${configured})`;
  return `highwater: default provider ${table.defaultProvider} (configured: ${configured})`;
}

function defaultCredentials(
  provider: ProviderName,
  env: ModelEnv,
): { credentials: ProviderCredentials } | { missing: string } {
  const baseUrl = nonEmpty(env.MODEL_BASE_URL);
  const apiKey = nonEmpty(env.MODEL_API_KEY);
  switch (provider) {
    case "openai":
      // A local OpenAI-compatible endpoint needs no key; api.openai.com needs one.
      if (!baseUrl && !apiKey) return { missing: "needs MODEL_BASE_URL or MODEL_API_KEY" };
      return { credentials: { baseUrl: baseUrl ?? OPENAI_DEFAULT_BASE_URL, ...(apiKey ? { apiKey } : {}) } };
    case "anthropic":
      if (!apiKey) return { missing: "needs MODEL_API_KEY" };
      return { credentials: { ...(baseUrl ? { baseUrl } : {}), apiKey } };
    case "workers-ai":
      return env.AI ? { credentials: {} } : { missing: "needs the AI binding (deployed environments only)" };
    case "demo":
      return { credentials: {} };
  }
}

/** Providers configured by their own vars (`OPENAI_*`, `ANTHROPIC_*`, the `AI` binding). */
function ownCredentials(env: ModelEnv): Partial<Record<ProviderName, ProviderCredentials>> {
  const out: Partial<Record<ProviderName, ProviderCredentials>> = {};
  const openaiBase = nonEmpty(env.OPENAI_BASE_URL);
  const openaiKey = nonEmpty(env.OPENAI_API_KEY);
  if (openaiBase || openaiKey)
    out.openai = { baseUrl: openaiBase ?? OPENAI_DEFAULT_BASE_URL, ...(openaiKey ? { apiKey: openaiKey } : {}) };
  const anthropicKey = nonEmpty(env.ANTHROPIC_API_KEY);
  const anthropicBase = nonEmpty(env.ANTHROPIC_BASE_URL);
  if (anthropicKey) out.anthropic = { ...(anthropicBase ? { baseUrl: anthropicBase } : {}), apiKey: anthropicKey };
  if (env.AI) out["workers-ai"] = {};
  return out;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function positiveInt(value: string | number | undefined, name: string): number | undefined {
  if (value === undefined || (typeof value === "string" && value.trim() === "")) return undefined;
  const n = typeof value === "number" ? value : Number(value.trim());
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer; got "${value}"`);
  return n;
}
