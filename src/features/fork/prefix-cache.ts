/**
 * A fork's prefix (docs/API.md#fork), read from its seq 2 blob once per incarnation and kept
 * while the blob it came from is the same.
 */
import type { ContextInput } from "../../context";
import type { BlobStore } from "../../log";
import type { SessionSummary } from "../../projections";
import { type ForkPrefix, renderPrefix } from "./facts";

export class ForkPrefixCache {
  #prefix: { sha256: string; value: NonNullable<ContextInput["prefix"]> } | null = null;

  constructor(readonly blobs: Pick<BlobStore, "readText">) {}

  prefixOf(s: SessionSummary): ContextInput["prefix"] {
    const ref = s.forkPrefix;
    if (!ref) return undefined;
    if (this.#prefix?.sha256 !== ref.sha256) {
      const text = this.blobs.readText(ref.sha256);
      if (text === null) throw new Error(`fork prefix blob ${ref.sha256} is missing`);
      const messages = (JSON.parse(text) as ForkPrefix).messages;
      this.#prefix = { sha256: ref.sha256, value: { messages, text: renderPrefix(messages) } };
    }
    return this.#prefix.value;
  }
}
