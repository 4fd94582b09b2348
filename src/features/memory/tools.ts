/**
 * `remember`, `recall` and `forget` (docs/API.md#memory): the model's reach to its owner's
 * memory object. `remember`'s entry id comes from the call's idempotency key, so a re-run after
 * a crash stores the entry once.
 */
import { z } from "zod";
import type { SessionOptions } from "../../contract";
import { toolError } from "../../tools/builtin/text";
import type { ToolContext, ToolDefinition, ToolResult } from "../../tools/types";
import { boundRecall, MEMORY_ID, memoryIdFor, memoryToolsFor } from "./entries";
import type { MemoryObject } from "./object";
import { MemoryText, MemoryTopic } from "./schema";
import { memoryOf } from "./stub";

const availableFor = (name: string) => (options: SessionOptions) => memoryToolsFor(options.memory).includes(name);

/** The owner's memory object, or null where the session records no owner directory. */
function memoryFor(ctx: ToolContext): DurableObjectStub<MemoryObject> | null {
  const env = ctx.env as unknown as Env | undefined;
  if (!ctx.directoryId || !env?.MEMORY) return null;
  return memoryOf(env, ctx.directoryId);
}

const UNAVAILABLE = toolError("unavailable", "memory is not available to this session");

const RememberInput = z.strictObject({
  text: MemoryText.describe("The fact to keep, in one or two sentences (at most 2 KiB)."),
  topic: MemoryTopic.optional().describe("A short topic to file it under, e.g. 'finance'."),
  pinned: z.boolean().optional().describe("Show it at the start of every new session (for facts that always matter)."),
});

export const rememberTool: ToolDefinition<z.infer<typeof RememberInput>> = {
  name: "remember",
  description:
    "Keep a fact about the user or their work across sessions (secrets are redacted). Answers { id }. Pinned entries are shown at the start of every new session; the rest are found with `recall`.",
  input: RememberInput,
  effect: () => "idempotent",
  callsOut: true,
  availableFor: availableFor("remember"),
  async run(args, ctx): Promise<ToolResult> {
    const memory = memoryFor(ctx);
    if (!memory) return UNAVAILABLE;
    const r = await memory.add({
      id: memoryIdFor("call", ctx.idempotencyKey),
      text: args.text,
      ...(args.topic !== undefined ? { topic: args.topic } : {}),
      pinned: args.pinned ?? false,
      source: { sessionId: ctx.sessionId, seq: ctx.callSeq ?? 0 },
      createdAt: new Date().toISOString(),
    });
    if (!r.ok) return toolError(r.error.code, r.error.message);
    return { status: "ok", response: { id: r.value.entry.id } };
  },
};

const RecallInput = z.strictObject({
  query: z.string().min(1).max(1000).describe("Words to search for."),
  topic: MemoryTopic.optional().describe("Only entries filed under this topic."),
  limit: z.number().int().min(1).max(20).default(5).describe("At most this many entries (1–20)."),
});

export const recallTool: ToolDefinition<z.infer<typeof RecallInput>> = {
  name: "recall",
  description:
    "Search what was remembered across sessions, best match first. Answers { entries: { id, text, topic?, pinned, createdAt }[], truncated }.",
  input: RecallInput,
  effect: () => "read",
  callsOut: true,
  availableFor: availableFor("recall"),
  async run(args, ctx): Promise<ToolResult> {
    const memory = memoryFor(ctx);
    if (!memory) return UNAVAILABLE;
    const page = await memory.list({
      q: args.query,
      limit: args.limit,
      ...(args.topic !== undefined ? { topic: args.topic } : {}),
    });
    const entries = page.entries.map(({ source: _source, ...e }) => e);
    return { status: "ok", response: boundRecall(entries) };
  },
};

const ForgetInput = z.strictObject({
  id: z.string().regex(MEMORY_ID, "a memory entry id (mem_…)").describe("The entry's id, from `remember` or `recall`."),
});

export const forgetTool: ToolDefinition<z.infer<typeof ForgetInput>> = {
  name: "forget",
  description: "Delete a remembered entry: its text leaves the memory store.",
  input: ForgetInput,
  effect: () => "write",
  callsOut: true,
  availableFor: availableFor("forget"),
  async run(args, ctx): Promise<ToolResult> {
    const memory = memoryFor(ctx);
    if (!memory) return UNAVAILABLE;
    const r = await memory.forget(args.id);
    if (!r.ok) return toolError(r.error.code, r.error.message);
    return { status: "ok", response: { id: args.id, forgotten: true } };
  },
};
