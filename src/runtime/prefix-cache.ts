/**
 * The prefix a session's model context starts from (a fork's, docs/API.md#fork), read from the
 * blob its summary names once per incarnation and kept while that blob is the same.
 */
import type { ContextInput } from "../context";
import type { BlobStore } from "../log";
import type { NeutralMessage } from "../model/types";
import type { SessionSummary } from "../projections";

/** Messages a fork's context starts with (after its system message), as plain text for a first compaction. */
export function renderPrefix(messages: NeutralMessage[]): string {
  return messages
    .map((m) =>
      typeof m.content === "string" ? `[${m.role}] ${m.content}` : `[${m.role}] ${JSON.stringify(m.content)}`,
    )
    .join("\n");
}

export class PrefixCache {
  #prefix: { sha256: string; value: NonNullable<ContextInput["prefix"]> } | null = null;

  constructor(readonly blobs: Pick<BlobStore, "readText">) {}

  prefixOf(s: SessionSummary): ContextInput["prefix"] {
    const ref = s.forkPrefix;
    if (!ref) return undefined;
    if (this.#prefix?.sha256 !== ref.sha256) {
      const text = this.blobs.readText(ref.sha256);
      if (text === null) throw new Error(`fork prefix blob ${ref.sha256} is missing`);
      const messages = (JSON.parse(text) as { messages: NeutralMessage[] }).messages;
      this.#prefix = { sha256: ref.sha256, value: { messages, text: renderPrefix(messages) } };
    }
    return this.#prefix.value;
  }
}
