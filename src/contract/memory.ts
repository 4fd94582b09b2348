/** Memory across sessions (docs/API.md#memory): a principal's entries, outside any session. */

/** `SessionOptions.memory`: what a session may do with its principal's memory. */
export const MEMORY_MODES = ["off", "read", "read-write"] as const;
export type MemoryMode = (typeof MEMORY_MODES)[number];

/** Where an entry came from: a session's call (the seq of the model answer that made it) or the API. */
export type MemorySource = { sessionId: string; seq: number } | { api: true };

export type MemoryEntry = {
  id: string;
  text: string;
  topic?: string;
  pinned: boolean;
  source: MemorySource;
  createdAt: string;
};

/** `GET /v1/memory`: newest first (or best first with `q`); `next` is the `before` of the next page. */
export type MemoryPage = { entries: MemoryEntry[]; next: string | null };

/** The limits of docs/API.md#memory. */
export const MEMORY_LIMITS = {
  /** An entry's text, in UTF-8 bytes after redaction. */
  textBytes: 2048,
  entries: 10_000,
  /** All of a principal's entries (text and topic, UTF-8). */
  totalBytes: 8 * 1024 * 1024,
  /** A `recall` answer, serialized. */
  recallBytes: 16 * 1024,
  /** The pinned entries a session's first model call shows. */
  shownBytes: 4096,
} as const;

/** A topic: a letter or digit, then up to 63 of `A-Z a-z 0-9 . _ -` (as a record's). */
export const MEMORY_TOPIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
