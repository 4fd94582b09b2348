/**
 * The bridge between the neutral port and the AI SDK: messages and tools in, stream parts and
 * errors out. Shared by the openai-compatible and anthropic adapters.
 */
import {
  type JSONValue,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  type ToolResultPart as SdkToolResultPart,
  type SystemModelMessage,
  streamText,
  type Tool,
} from "ai";
import { toFinishReason, toProviderError } from "./errors";
import {
  type AssistantPart,
  type ModelPart,
  type ModelRequest,
  type NeutralMessage,
  ProviderError,
  type ToolResultPart,
  type ToolSpec,
} from "./types";

/**
 * How a provider family reads a conversation.
 * - `openai`: thinking is not sent back (`reasoning_content` is not part of Chat Completions),
 *   a later system message stays a system message.
 * - `anthropic`: thinking goes back only with its signature (the API rejects unsigned blocks),
 *   tool input must be an object, system text is only allowed first, and prompt-cache
 *   breakpoints are marked on the system prompt and the last message.
 */
export type Dialect = "openai" | "anthropic";

export type AiSdkPrompt = {
  instructions: string | SystemModelMessage | undefined;
  messages: ModelMessage[];
};

const ANTHROPIC_CACHE = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/** Neutral messages (system prompt first) → AI SDK instructions + messages. Pure and deterministic. */
export function toAiSdkPrompt(messages: NeutralMessage[], dialect: Dialect): AiSdkPrompt {
  const [first, ...rest] = messages;
  const systemText = first?.role === "system" ? first.content : undefined;
  const body = first?.role === "system" ? rest : messages;

  const converted: ModelMessage[] = [];
  for (const message of body) {
    const next = convertMessage(message, dialect);
    if (next) converted.push(next);
  }

  if (dialect === "anthropic") {
    const last = converted.at(-1);
    if (last) converted[converted.length - 1] = { ...last, providerOptions: ANTHROPIC_CACHE } as ModelMessage;
    return {
      instructions:
        systemText === undefined
          ? undefined
          : { role: "system", content: systemText, providerOptions: ANTHROPIC_CACHE },
      messages: converted,
    };
  }
  return { instructions: systemText, messages: converted };
}

function convertMessage(message: NeutralMessage, dialect: Dialect): ModelMessage | null {
  switch (message.role) {
    case "system":
      // Anthropic has one system prompt; a later system note is read as a user message.
      return dialect === "anthropic"
        ? { role: "user", content: `<system>\n${message.content}\n</system>` }
        : { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "assistant": {
      const content = message.content.flatMap((part) => convertAssistantPart(part, dialect));
      return content.length > 0 ? { role: "assistant", content } : null;
    }
    case "tool":
      return { role: "tool", content: message.content.map(convertToolResult) };
  }
}

type SdkAssistantContent = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>;

function convertAssistantPart(part: AssistantPart, dialect: Dialect): SdkAssistantContent {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "thinking":
      if (dialect !== "anthropic" || part.signature === undefined) return [];
      return [{ type: "reasoning", text: part.text, providerOptions: { anthropic: { signature: part.signature } } }];
    case "tool-call":
      return [
        {
          type: "tool-call",
          toolCallId: part.providerCallId ?? part.callId,
          toolName: part.name,
          input:
            dialect === "anthropic" && !isPlainObject(part.args) ? { invalid_arguments: part.args ?? null } : part.args,
        },
      ];
  }
}

function convertToolResult(part: ToolResultPart): SdkToolResultPart {
  const value = (part.output ?? null) as JSONValue;
  return {
    type: "tool-result",
    toolCallId: part.providerCallId ?? part.callId,
    toolName: part.name,
    // `error-json` lets Anthropic mark the block `is_error`; Chat Completions serializes both alike.
    output: part.status === "ok" ? { type: "json", value } : { type: "error-json", value },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Tool specs → AI SDK tools without `execute` or validation: raw arguments reach the runtime. */
export function toAiSdkTools(specs: ToolSpec[]): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const spec of specs) {
    tools[spec.name] = {
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
    } as Tool;
  }
  return tools;
}

/**
 * Stream one model call through the AI SDK and map its parts to the port's.
 * Ends by throwing `signal.reason` when aborted, a `ProviderError` on any provider failure.
 */
export async function* streamWithAiSdk(options: {
  model: LanguageModel;
  request: ModelRequest;
  dialect: Dialect;
  signal: AbortSignal;
}): AsyncGenerator<ModelPart> {
  const { model, request, dialect, signal } = options;
  signal.throwIfAborted();
  const prompt = toAiSdkPrompt(request.messages, dialect);
  const tools = toAiSdkTools(request.tools);
  const result = streamText({
    model,
    instructions: prompt.instructions,
    messages: prompt.messages,
    allowSystemInMessages: true,
    tools,
    // The SDK documents unlisted tools as sorted alphabetically; pin the caller's order (and the prompt cache).
    toolOrder: request.tools.map((tool) => tool.name),
    maxOutputTokens: request.model.maxOutputTokens,
    // Retries belong to the runtime, which logs each attempt.
    maxRetries: 0,
    abortSignal: signal,
    // Errors are rethrown from the iteration below; the default handler would also console.error them.
    onError: () => {},
  });

  try {
    for await (const part of result.stream) {
      signal.throwIfAborted();
      switch (part.type) {
        case "text-delta":
          if (part.text !== "") yield { type: "text-delta", text: part.text };
          break;
        case "reasoning-delta": {
          const signature = readSignature(part.providerMetadata);
          if (part.text !== "" || signature !== undefined) {
            yield signature === undefined
              ? { type: "thinking-delta", text: part.text }
              : { type: "thinking-delta", text: part.text, signature };
          }
          break;
        }
        case "tool-call":
          // Unknown names and unparsable arguments arrive here too (`invalid: true`, input = the
          // parsed JSON or the raw text); the runtime answers them with an error result.
          yield { type: "tool-call", callId: part.toolCallId, name: part.toolName, args: part.input };
          break;
        case "finish": {
          const usage = part.totalUsage;
          if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
            const cached = usage.inputTokenDetails.cacheReadTokens;
            yield {
              type: "usage",
              inputTokens: usage.inputTokens ?? 0,
              outputTokens: usage.outputTokens ?? 0,
              ...(cached === undefined ? {} : { cachedInputTokens: cached }),
            };
          }
          const reason = toFinishReason(part.finishReason);
          // docs/API.md §7.9: only the provider's own end marker is a finish (Anthropic's
          // `message_stop`: without it the SDK reports `interrupted`); anything else is a cut stream.
          if (reason === null)
            throw new ProviderError(
              `the stream ended without a finish (${String(part.finishReason)})`,
              null,
              true,
              undefined,
              {
                attemptCode: "stream_cut",
              },
            );
          yield { type: "finish", reason };
          break;
        }
        case "error":
          throw toProviderError(part.error);
        case "abort":
          throw signal.reason ?? new DOMException("The model call was aborted.", "AbortError");
        default:
          // tool-error follows every invalid tool-call (already yielded); the rest is bookkeeping.
          break;
      }
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw toProviderError(error);
  }
  signal.throwIfAborted();
}

function readSignature(metadata: unknown): string | undefined {
  if (!isPlainObject(metadata)) return undefined;
  const anthropic = metadata.anthropic;
  if (!isPlainObject(anthropic)) return undefined;
  return typeof anthropic.signature === "string" ? anthropic.signature : undefined;
}

export { parseRetryAfterMs, toFinishReason, toProviderError } from "./errors";
