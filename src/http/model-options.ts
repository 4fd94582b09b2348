import { type ModelConfig, resolveDefaultModel } from "../model";

/**
 * Applies model options (at creation or PATCH) to a base model. A new provider without a
 * name gets that provider's default name; a new window without an output reservation gets
 * the default reservation min(8192, floor(W/4)).
 */
export function mergeModel(base: ModelConfig, change: Partial<ModelConfig>): ModelConfig {
  const merged: ModelConfig = { ...base, ...change };
  if (change.provider && change.provider !== base.provider && !change.name) {
    merged.name = resolveDefaultModel({ MODEL_PROVIDER: change.provider }).name;
  }
  if (change.contextWindow !== undefined && change.maxOutputTokens === undefined) {
    merged.maxOutputTokens = Math.min(8192, Math.floor(merged.contextWindow / 4));
  }
  return merged;
}
