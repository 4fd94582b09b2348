/**
 * The demo model's use of memory (docs/API.md#memory), so the README walkthrough works offline:
 * "remember …" (or "always remember …", pinned) calls `remember`; "what do you remember about …"
 * calls `recall`; each answers what the tool said.
 */
import type { ToolResultPart } from "./types";

export type MemoryCall = { name: "remember" | "recall"; args: Record<string, unknown>; preamble: string };

// "remember that …", "remember: …" or "always remember …": a plain "remember the milk" stays a task.
const REMEMBER = /^(?:(always)\s+remember(?:\s+that)?[\s:,]+|remember(?:\s+that\s+|\s*:\s*))([\s\S]+)$/i;
const RECALL = /what\s+do\s+you\s+remember(?:\s+about\s+([\s\S]+?))?\s*\??\s*$/i;

/** The memory call a user's message asks for, if the session has that tool. */
export function memoryCallFor(task: string, available: ReadonlySet<string>): MemoryCall | null {
  const text = task.trim();
  const recall = RECALL.exec(text);
  if (recall && available.has("recall")) {
    const query = (recall[1] ?? "").trim() || text;
    return { name: "recall", args: { query }, preamble: `I'll look in my memory for "${query}".` };
  }
  const remember = REMEMBER.exec(text);
  if (remember && available.has("remember")) {
    const fact = remember[2]!.trim();
    const pinned = Boolean(remember[1]);
    return {
      name: "remember",
      args: { text: fact, ...(pinned ? { pinned: true } : {}) },
      preamble: pinned ? "I'll remember that, and bring it up in every new session." : "I'll remember that.",
    };
  }
  return null;
}

/** The answer once the memory tool has answered. */
export function memoryAnswer(result: ToolResultPart, label: string): string {
  const out = (result.output ?? {}) as { id?: string; entries?: { text: string; topic?: string }[]; message?: string };
  if (result.status !== "ok") return `${label} My memory answered an error: ${out.message ?? JSON.stringify(out)}`;
  if (result.name === "remember") return `${label} Remembered (${out.id}). A new session of yours can recall it.`;
  const entries = out.entries ?? [];
  if (entries.length === 0) return `${label} I don't remember anything about that.`;
  return [
    `${label} Here is what I remember:`,
    ...entries.map((e) => `- ${e.topic ? `[${e.topic}] ` : ""}${e.text}`),
  ].join("\n");
}
