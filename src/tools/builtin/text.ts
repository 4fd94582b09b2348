import { utf8Bytes } from "../../contract/frames";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 length of a string in bytes (one implementation, shared with the HTTP limits). */
export const utf8ByteLength = utf8Bytes;

/**
 * The largest end ≤ `end` that does not split a UTF-8 sequence in `bytes`
 * (a sequence that starts before `end` but finishes after it is left out).
 */
export function utf8BoundaryBefore(bytes: Uint8Array, end: number): number {
  let i = Math.min(end, bytes.byteLength);
  if (i === bytes.byteLength) return i;
  // Step back over continuation bytes (10xxxxxx) to the byte that starts the character at `i`.
  while (i > 0 && ((bytes[i] as number) & 0xc0) === 0x80) i--;
  return i;
}

/** The first offset ≥ `start` that begins a UTF-8 sequence (skips continuation bytes). */
export function utf8BoundaryAfter(bytes: Uint8Array, start: number): number {
  let i = Math.max(0, start);
  while (i < bytes.byteLength && ((bytes[i] as number) & 0xc0) === 0x80) i++;
  return i;
}

/** The longest prefix of `text` that is at most `maxBytes` UTF-8 bytes and ends on a whole character. */
export function cutUtf8(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at least one UTF-8 byte, so the first maxBytes units hold the answer.
  let head = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  const last = head.charCodeAt(head.length - 1);
  if (head.length < text.length && last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  const bytes = encoder.encode(head);
  if (bytes.byteLength <= maxBytes) return head;
  return decoder.decode(bytes.subarray(0, utf8BoundaryBefore(bytes, maxBytes)));
}

/** Lines of a text: split on "\n", a final newline does not start another line, "" has none. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The `{ code, message }` shape every tool error response has. */
export function toolError(code: string, message: string, extra?: Record<string, unknown>) {
  return { status: "error" as const, response: { code, message, ...extra } };
}
