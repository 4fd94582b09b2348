/** The model port's public surface: types, provider credentials and the provider factory. */
import { createAnthropicProvider } from "./anthropic";
import { credentialsFor, type ModelEnv } from "./credentials";
import { createDemoProvider } from "./demo";
import { createOpenAIProvider } from "./openai";
import { type ModelConfig, type ModelPart, type ModelProvider, ProviderError, type ProviderSettings } from "./types";
import { createWorkersAiProvider, type WorkersAiBinding } from "./workers-ai";

export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MODEL_NAMES,
  defaultMaxOutputTokens,
  describeDefaultProvider,
  describeProviders,
  isProviderName,
  type ModelEnv,
  type ProviderCredentials,
  type ProviderTable,
  resolveDefaultModel,
  resolveProviders,
} from "./credentials";
export { createDemoProvider, DEMO_LABEL, DEMO_NOTE_PATH, type DemoStep, planDemoStep } from "./demo";
export { mergeModel } from "./options";
export * from "./types";
export { createWorkersAiProvider, type WorkersAiBinding } from "./workers-ai";

/** The adapter for a model config. `workers-ai` needs the AI binding (`settings.ai`), which only deployed environments have. */
export function createProvider(config: ModelConfig, settings: ProviderSettings): ModelProvider {
  switch (config.provider) {
    case "openai":
      return createOpenAIProvider(settings);
    case "anthropic":
      return createAnthropicProvider(settings);
    case "demo":
      return createDemoProvider();
    case "workers-ai":
      return createWorkersAiProvider(settings.ai as WorkersAiBinding | undefined);
  }
}

/**
 * The adapter for a session's model with that provider's own credentials only (docs/API.md §1).
 * A provider that is no longer configured (the vars changed since the session chose it)
 * fails each call at once, without sending anything anywhere.
 */
export function createConfiguredProvider(
  env: ModelEnv,
  config: ModelConfig,
  fetch?: ProviderSettings["fetch"],
): ModelProvider {
  const credentials = credentialsFor(env, config.provider);
  if (!credentials) return unconfiguredProvider(config);
  // Test-only: a slower demo stream, so a browser test can open a page mid-answer.
  const demoDelay = Number((env as { HW_DEMO_CHUNK_DELAY_MS?: string }).HW_DEMO_CHUNK_DELAY_MS);
  if (config.provider === "demo" && demoDelay > 0) return createDemoProvider({ chunkDelayMs: demoDelay });
  const ai = config.provider === "workers-ai" ? { ai: env.AI } : {};
  return createProvider(config, { ...credentials, ...ai, ...(fetch ? { fetch } : {}) });
}

function unconfiguredProvider(config: ModelConfig): ModelProvider {
  return {
    name: config.provider,
    // biome-ignore lint/correctness/useYield: fails before any part
    async *stream(): AsyncGenerator<ModelPart> {
      throw new ProviderError(`provider ${config.provider} is not configured on this Worker`, null, false);
    },
  };
}
