/**
 * A client's WebSocket frame (docs/API.md §4), checked before it reaches the session: size, JSON,
 * schema and text limit. An invalid frame becomes an `error` frame built like every error body.
 */

import { errorFrame } from "../contract/errors";
import { ClientFrame, describeIssues, MAX_TEXT_BYTES, utf8Bytes } from "../contract/frames";

const MAX_FRAME_BYTES = 1_048_576;

export type ReadFrame =
  | { ok: true; id: string | undefined; frame: ClientFrame }
  | { ok: false; error: ReturnType<typeof errorFrame> };

export function readClientFrame(message: string | ArrayBuffer): ReadFrame {
  const size = typeof message === "string" ? utf8Bytes(message) : message.byteLength;
  if (size > MAX_FRAME_BYTES) return { ok: false, error: errorFrame("payload_too_large", "frame over 1 MiB") };
  let raw: unknown;
  try {
    raw = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message));
  } catch {
    return { ok: false, error: errorFrame("bad_request", "frame is not JSON") };
  }
  const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : undefined;
  const parsed = ClientFrame.safeParse(raw);
  if (!parsed.success) return { ok: false, error: errorFrame("bad_request", describeIssues(parsed.error), id) };
  const frame = parsed.data;
  if (frame.type === "message" && utf8Bytes(frame.text) > MAX_TEXT_BYTES)
    return { ok: false, error: errorFrame("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`, id) };
  return { ok: true, id, frame };
}
