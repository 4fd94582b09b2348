import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamWithAiSdk } from "./convert";
import type { ModelPart, ModelProvider, ModelRequest, ProviderSettings } from "./types";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Any OpenAI-compatible Chat Completions endpoint: POST `{baseUrl}/chat/completions`, streamed, usage included. */
export function createOpenAIProvider(settings: ProviderSettings): ModelProvider {
  const provider = createOpenAICompatible({
    name: "openai",
    baseURL: (settings.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, ""),
    apiKey: settings.apiKey,
    // Without it the stream carries no usage, and the context budget has nothing to start from.
    includeUsage: true,
    fetch: settings.fetch,
  });
  return {
    name: "openai",
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart> {
      return streamWithAiSdk({ model: provider.chatModel(request.model.name), request, dialect: "openai", signal });
    },
  };
}
