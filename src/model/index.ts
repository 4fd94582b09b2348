/** The model port's public surface: types, the provider factory and the default model from Worker vars. */
import { createAnthropicProvider } from "./anthropic";
import { createDemoProvider } from "./demo";
import { createOpenAIProvider } from "./openai";
import {
  type ModelConfig,
  type ModelProvider,
  PROVIDERS,
  ProviderError,
  type ProviderName,
  type ProviderSettings,
} from "./types";

export { createDemoProvider, DEMO_LABEL, DEMO_NOTE_PATH, type DemoStep, planDemoStep } from "./demo";
export * from "./types";

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The model id each provider uses when `MODEL_NAME` is not set. */
export const DEFAULT_MODEL_NAMES: Record<ProviderName, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  "workers-ai": "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
  demo: "demo",
};

/** CONTRACT §1: tokens reserved for output when `MODEL_MAX_OUTPUT_TOKENS` is not set. */
export function defaultMaxOutputTokens(contextWindow: number): number {
  return Math.min(8192, Math.floor(contextWindow / 4));
}

export type ModelEnv = {
  MODEL_PROVIDER?: string;
  MODEL_BASE_URL?: string;
  MODEL_NAME?: string;
  MODEL_CONTEXT_WINDOW?: string | number;
  MODEL_MAX_OUTPUT_TOKENS?: string | number;
};

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}

/**
 * The session default model from Worker vars (CONTRACT §1). Empty strings count as unset;
 * an unknown provider or a non-positive number is a configuration error and throws.
 */
export function resolveDefaultModel(env: ModelEnv): ModelConfig {
  const providerVar = nonEmpty(env.MODEL_PROVIDER);
  const provider = providerVar ?? (nonEmpty(env.MODEL_BASE_URL) ? "openai" : "demo");
  if (!isProviderName(provider)) {
    throw new Error(`MODEL_PROVIDER must be one of ${PROVIDERS.join(", ")}; got "${provider}"`);
  }
  const contextWindow = positiveInt(env.MODEL_CONTEXT_WINDOW, "MODEL_CONTEXT_WINDOW") ?? DEFAULT_CONTEXT_WINDOW;
  const maxOutputTokens =
    positiveInt(env.MODEL_MAX_OUTPUT_TOKENS, "MODEL_MAX_OUTPUT_TOKENS") ?? defaultMaxOutputTokens(contextWindow);
  return {
    provider,
    name: nonEmpty(env.MODEL_NAME) ?? DEFAULT_MODEL_NAMES[provider],
    contextWindow,
    maxOutputTokens,
  };
}

/** The adapter for a model config. `workers-ai` needs the AI binding, which only deployed environments have. */
export function createProvider(config: ModelConfig, settings: ProviderSettings): ModelProvider {
  switch (config.provider) {
    case "openai":
      return createOpenAIProvider(settings);
    case "anthropic":
      return createAnthropicProvider(settings);
    case "demo":
      return createDemoProvider();
    case "workers-ai":
      throw new ProviderError(
        "workers-ai needs the Workers AI binding (AI), which exists only in a deployed environment; use MODEL_PROVIDER=openai, anthropic or demo locally",
        null,
        false,
      );
  }
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
