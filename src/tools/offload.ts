import { canonicalOnce, placeholderFor } from "../log";
import { cutUtf8 } from "./builtin/text";

/** The longest preview a placeholder carries (docs/API.md §5). */
export const PREVIEW_BYTES = 512;

export type OffloadPlaceholder = ReturnType<typeof placeholderFor>;

/** The archive ref for a blob digest. */
export function archiveRef(sha256: string): string {
  return `archive://${sha256}`;
}

/** What the model sees in place of an offloaded result: where it is and how it starts (the log's model view holds the same). */
export function makePlaceholder(
  tool: string,
  text: string,
  meta: { sha256: string; bytes: number },
): OffloadPlaceholder {
  return placeholderFor(tool, { sha256: meta.sha256, bytes: meta.bytes, preview: cutUtf8(text, PREVIEW_BYTES) });
}

/** The text a tool response is measured and archived as: a string as-is, anything else as canonical JSON. */
export function serializeToolResponse(response: unknown): string {
  return typeof response === "string" ? response : canonicalOnce(response);
}
