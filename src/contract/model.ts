/** The model as the wire names it: providers, a session's model, provider-neutral messages, tool specs. */

export const PROVIDERS = ["openai", "anthropic", "workers-ai", "demo"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export type ModelConfig = {
  provider: ProviderName;
  name: string;
  contextWindow: number;
  maxOutputTokens: number;
};

export type AssistantPart =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature?: string }
  /** `providerCallId`: the id the provider gave the call, sent in its place on the wire (docs/API.md §7.6). */
  | { type: "tool-call"; callId: string; name: string; args: unknown; providerCallId?: string };

export type ToolResultPart = {
  type: "tool-result";
  callId: string;
  providerCallId?: string;
  name: string;
  status: "ok" | "error" | "interrupted" | "rejected";
  output: unknown;
};

/** Provider-neutral messages: what `GET /context` shows and what `requestDigest` hashes. */
export type NeutralMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: AssistantPart[] }
  | { role: "tool"; content: ToolResultPart[] };

/** A tool as the model sees it: the JSON schema is generated from the tool's zod input schema. */
export type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };
