/**
 * Memory's pure decisions (docs/API.md#memory): entry ids, the limits, the full-text query, and
 * what a recall answer and a session's first model call may hold, in bytes.
 */
import { MEMORY_LIMITS, type MemoryEntry, type MemoryMode } from "../../contract";
import { canonical } from "../../contract/canonical";
import { utf8Bytes } from "../../contract/frames";
import { sha256Text } from "../../contract/sha256";

/** Entry ids: `mem_` and 32 lowercase hex characters. */
export const MEMORY_ID = /^mem_[0-9a-f]{32}$/;

/**
 * The id of an entry from an idempotency key: a `remember` call's (so a re-run after a crash
 * stores it once) or a `POST /v1/memory`'s. The two kinds never share an id.
 */
export function memoryIdFor(kind: "call" | "api", key: string): string {
  return `mem_${sha256Text(`memory:${kind}:${key}`).slice(0, 32)}`;
}

/** The bytes an entry counts against its principal's 8 MiB: its text and topic, UTF-8. */
export function entryBytes(e: { text: string; topic?: string | null }): number {
  return utf8Bytes(e.text) + (e.topic ? utf8Bytes(e.topic) : 0);
}

export type Usage = { entries: number; bytes: number };

/** Why an entry of `bytes` may not be added to a store holding `usage`, or null when it may. */
export function refuseAdd(usage: Usage, bytes: number, limits = MEMORY_LIMITS): string | null {
  if (usage.entries + 1 > limits.entries)
    return `memory holds at most ${limits.entries} entries; it holds ${usage.entries}`;
  if (usage.bytes + bytes > limits.totalBytes)
    return `memory holds at most ${limits.totalBytes} bytes; it holds ${usage.bytes} and the entry is ${bytes}`;
  return null;
}

const MAX_QUERY_TERMS = 32;

/**
 * An FTS5 query for free text: each word quoted (so no word is read as an operator), any of
 * them matching, best first by bm25. Null when `text` holds no word.
 */
export function ftsQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
  return words.length === 0 ? null : words.map((w) => `"${w}"`).join(" OR ");
}

/**
 * The longest prefix of `entries` (best first) whose answer `{ entries, truncated }` serializes
 * to at most `maxBytes`; `truncated` says entries were left out.
 */
export function boundRecall<T>(entries: T[], maxBytes: number = MEMORY_LIMITS.recallBytes) {
  const out: T[] = [];
  let bytes = utf8Bytes(JSON.stringify({ entries: [], truncated: false }));
  for (const e of entries) {
    const size = utf8Bytes(JSON.stringify(e)) + (out.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) return { entries: out, truncated: true };
    bytes += size;
    out.push(e);
  }
  return { entries: out, truncated: false };
}

/** The pinned entries a session's first model call shows: newest first, while their text fits `maxBytes`. */
export function pinnedToShow<T extends Pick<MemoryEntry, "text">>(
  newestFirst: T[],
  maxBytes: number = MEMORY_LIMITS.shownBytes,
): T[] {
  const out: T[] = [];
  let bytes = 0;
  for (const e of newestFirst) {
    bytes += utf8Bytes(e.text);
    if (bytes > maxBytes) break;
    out.push(e);
  }
  return out;
}

/** The system text that shows pinned entries to the model, or "" when there are none. */
export function memorySystemText(shown: Pick<MemoryEntry, "id" | "text" | "topic">[]): string {
  if (shown.length === 0) return "";
  const lines = shown.map((e) => `- ${e.topic ? `[${e.topic}] ` : ""}${e.text.replace(/\s*\n\s*/g, " ")}`);
  return `What you remember about this user (pinned memory; \`recall\` searches the rest):\n${lines.join("\n")}`;
}

/** The digest `stateDelta.memoryShown` records: over the ids and the exact text shown. */
export function shownDigest(ids: string[], text: string): string {
  return sha256Text(canonical({ ids, text }));
}

/** The memory tools a session of this mode has. */
export function memoryToolsFor(mode: MemoryMode | undefined): readonly string[] {
  if (mode === "off") return [];
  if (mode === "read") return ["recall"];
  return ["remember", "recall", "forget"];
}
