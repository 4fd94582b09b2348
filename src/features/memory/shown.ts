/**
 * What a session is shown of its owner's memory (docs/API.md#memory): before its first model
 * call, the pinned entries (newest first, ≤ 4 KiB) are read once and recorded as a hidden
 * `stateDelta.memoryShown { digest, ids, text }`, the text in a blob. Every later request is
 * built from that record, never from the store, so it rebuilds byte for byte after a crash or
 * an eviction, and later changes to the memory never change the session's prefix.
 */
import type { Event, EventDraft } from "../../log";
import { isBlobRef } from "../../log";
import type { ContextShown, ContextView, TurnPort } from "../../runtime/feature";
import { memorySystemText, shownDigest } from "./entries";
import { memoryOf } from "./stub";

/** The memory feature's summary slice: what the session was shown, once recorded. */
export type MemoryShown = {
  digest: string;
  ids: string[];
  text: { sha256: string; bytes: number; mediaType: string } | null;
};

export function foldMemoryShown(slice: unknown, e: Event): unknown {
  const d = e.actions?.stateDelta?.memoryShown as { digest?: unknown; ids?: unknown; text?: unknown } | undefined;
  if (!d || typeof d.digest !== "string") return slice;
  const shown: MemoryShown = {
    digest: d.digest,
    ids: Array.isArray(d.ids) ? d.ids.map(String) : [],
    text: isBlobRef(d.text) ? d.text.$blob : null,
  };
  return shown;
}

/**
 * Before a turn's first model call: records what the session is shown, once in its life and only
 * at its first turn (a session from before memory existed, or with `memory: "off"`, is shown
 * nothing). With nothing pinned, or a memory object that cannot be reached, nothing is recorded
 * and nothing is shown; the next turns do not look again, so the session's prefix never changes.
 */
export async function recordMemoryShown(port: TurnPort): Promise<EventDraft[]> {
  const s = port.summary;
  if (port.slice !== undefined || s.lastClose !== null || port.options.memory === "off") return [];
  const env = port.env as unknown as Env;
  if (!s.directoryId || !env.MEMORY) return [];
  let entries: { id: string; text: string; topic?: string }[];
  try {
    entries = await memoryOf(env, s.directoryId).shown();
  } catch (err) {
    console.error("highwater: memory could not be read; this session is shown none", err);
    return [];
  }
  if (entries.length === 0) return [];
  const ids = entries.map((e) => e.id);
  const text = memorySystemText(entries);
  const meta = port.putBlob(text, "text/plain; charset=utf-8");
  return [
    {
      author: "runtime",
      modelVisibility: "hidden",
      ...port.base,
      actions: { stateDelta: { memoryShown: { digest: shownDigest(ids, text), ids, text: { $blob: meta } } } },
    },
  ];
}

/** The recorded text, after the system prompt, at every model call. */
export function memoryContext(view: ContextView): ContextShown {
  const meta = (view.slice as MemoryShown | undefined)?.text;
  if (!meta) return {};
  const text = view.readBlob(meta.sha256);
  if (text === null) throw new Error(`memoryShown blob ${meta.sha256} is missing`);
  return { system: text };
}
