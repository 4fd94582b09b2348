import { canonical } from "../log";
import { cutUtf8 } from "./builtin/text";

/** The longest preview a placeholder carries (CONTRACT §5). */
export const PREVIEW_BYTES = 512;

export type OffloadPlaceholder = {
  offloaded: true;
  tool: string;
  bytes: number;
  sha256: string;
  ref: string;
  preview: string;
};

/** The archive ref for a blob digest. */
export function archiveRef(sha256: string): string {
  return `archive://${sha256}`;
}

/** What the model sees in place of an offloaded result: where it is and how it starts. */
export function makePlaceholder(
  tool: string,
  text: string,
  meta: { sha256: string; bytes: number },
): OffloadPlaceholder {
  return {
    offloaded: true,
    tool,
    bytes: meta.bytes,
    sha256: meta.sha256,
    ref: archiveRef(meta.sha256),
    preview: cutUtf8(text, PREVIEW_BYTES),
  };
}

/** The text a tool response is measured and archived as: a string as-is, anything else as canonical JSON. */
export function serializeToolResponse(response: unknown): string {
  return typeof response === "string" ? response : canonical(response);
}
