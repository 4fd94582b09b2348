/** The inputs memory takes, from the API and from the model (docs/API.md#memory). */
import { z } from "zod";
import { MEMORY_TOPIC, MessageText, utf8Bytes } from "../../contract";

/**
 * Before redaction a text may be longer than the 2 KiB it must fit after (a long secret becomes
 * `[secret:NAME]`); the memory object decides on the redacted text. This bound only keeps a
 * text from being carried that could never fit.
 */
export const MAX_TEXT_IN_BYTES = 64 * 1024;

export const MemoryText = MessageText.refine((s) => s.trim().length > 0, "text: must not be blank").refine(
  (s) => utf8Bytes(s) <= MAX_TEXT_IN_BYTES,
  `text: at most ${MAX_TEXT_IN_BYTES} UTF-8 bytes`,
);

export const MemoryTopic = z.string().regex(MEMORY_TOPIC, "a letter or digit, then up to 63 of A-Z a-z 0-9 . _ -");
