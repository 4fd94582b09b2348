/** Why an MCP request failed, classified from what the SDK threw (docs/API.md#mcp-servers). */
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { CONNECTION_CLOSED, TOO_LARGE } from "./bounded-fetch";
import { NeedsAuthorization } from "./oauth-grants";

/**
 * Why a call failed: `timeout` (no answer in time), `transport` (network, HTTP ≥ 400),
 * `protocol` (a JSON-RPC error), `too_large` (an answer over the byte limit), `aborted` (a stop).
 */
export class McpCallError extends Error {
  constructor(
    readonly kind: "timeout" | "transport" | "protocol" | "too_large" | "aborted" | "needs_authorization",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) out.push(e);
  return out;
}

export function classify(err: unknown, signal?: AbortSignal): McpCallError {
  if (err instanceof McpCallError) return err;
  const chain = causeChain(err);
  if (chain.some((e) => e instanceof NeedsAuthorization))
    return new McpCallError("needs_authorization", (err as Error).message);
  const message = err instanceof Error ? err.message : String(err);
  if (signal?.aborted) return new McpCallError("aborted", "the call was aborted", { cause: err });
  // The SDK passes the stream's error on as it is, or wrapped in its own message.
  if (chain.some((e) => e instanceof Error && e.message.includes(TOO_LARGE)))
    return new McpCallError("too_large", message, { cause: err });
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) return new McpCallError("timeout", message, { cause: err });
    return new McpCallError("transport", message, { cause: err });
  }
  if (err instanceof ProtocolError) {
    if ((err.code as number) === CONNECTION_CLOSED) return new McpCallError("transport", message, { cause: err });
    return new McpCallError("protocol", message, { cause: err });
  }
  return new McpCallError("transport", message, { cause: err });
}
