import { DEFAULT_MODEL_NAMES, defaultMaxOutputTokens } from "./credentials";
import type { ModelConfig } from "./types";

/**
 * Applies model options (at creation or PATCH) to a base model. A new provider without a
 * name gets that provider's default name; a new window without an output reservation gets
 * the default reservation min(8192, floor(W/4)).
 */
export function mergeModel(base: ModelConfig, change: Partial<ModelConfig>): ModelConfig {
  const merged: ModelConfig = { ...base, ...change };
  if (change.provider && change.provider !== base.provider && !change.name) {
    merged.name = DEFAULT_MODEL_NAMES[change.provider];
  }
  if (change.contextWindow !== undefined && change.maxOutputTokens === undefined) {
    merged.maxOutputTokens = defaultMaxOutputTokens(merged.contextWindow);
  }
  return merged;
}
