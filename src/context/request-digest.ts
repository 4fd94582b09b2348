import { canonical } from "../contract/canonical";
import { sha256Hex } from "../log/hash";
import type { NeutralMessage, ToolSpec } from "../model/types";
import { sortedTools } from "./request-view";

type Request = { messages: NeutralMessage[]; tools: ToolSpec[] };

/** Digests the request view computed as it built a request, by the request's messages and tools. */
const known = new WeakMap<NeutralMessage[], { tools: ToolSpec[]; digest: string }>();

export function rememberRequestDigest(request: Request, digest: string): void {
  known.set(request.messages, { tools: request.tools, digest });
}

/**
 * The request digest (docs/design.md#context): sha256 hex of the canonical `{ messages, tools }`, the tools sorted by name.
 * A request the view built has its digest already (its bytes were hashed as they were added);
 * any other is serialized and hashed whole.
 */
export function requestDigest(request: Request): string {
  const hit = known.get(request.messages);
  if (hit && hit.tools === request.tools) return hit.digest;
  return sha256Hex(canonical({ messages: request.messages, tools: sortedTools(request.tools) }));
}
