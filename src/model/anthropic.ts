import { createAnthropic } from "@ai-sdk/anthropic";
import { streamWithAiSdk } from "./convert";
import { type ModelPart, type ModelProvider, type ModelRequest, ProviderError, type ProviderSettings } from "./types";

/** Anthropic Messages API (default base `https://api.anthropic.com/v1`); thinking signatures are kept. */
export function createAnthropicProvider(settings: ProviderSettings): ModelProvider {
  const provider = createAnthropic({
    baseURL: settings.baseUrl?.replace(/\/+$/, ""),
    apiKey: settings.apiKey,
    fetch: settings.fetch,
  });
  return {
    name: "anthropic",
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart> {
      // Checked here: the SDK would fall back to process.env, which a Worker does not have.
      if (!settings.apiKey) {
        return failWith(new ProviderError("anthropic: MODEL_API_KEY is not set", null, false));
      }
      return streamWithAiSdk({ model: provider(request.model.name), request, dialect: "anthropic", signal });
    },
  };
}

async function* failWith(error: ProviderError): AsyncGenerator<ModelPart> {
  yield* [];
  throw error;
}
