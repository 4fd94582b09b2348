/**
 * The built-in demo model: offline and deterministic, so `npm start` shows a working agent with
 * no key. Its answer is a pure function of the request; only the pacing of the chunks uses time.
 */
import { argsFromSchema, toolNamedIn } from "./demo-args";
import { memoryAnswer, memoryCallFor } from "./demo-memory";
import { answerWithSkill, skillAskedIn } from "./demo-skill";
import { buildFinalAnswer, buildNote, buildSummary, DEMO_LABEL, DEMO_NOTE_PATH } from "./demo-text";
import type { ModelPart, ModelProvider, ModelRequest, NeutralMessage } from "./types";

export { DEMO_LABEL, DEMO_NOTE_PATH } from "./demo-text";

/** The tools the demo walks through, in order; a tool missing from the request is skipped. */
const DEMO_TOOL_SEQUENCE = ["write_file", "list_files", "read_file", "search_files"] as const;
const TEXT_CHUNKS = 6;

/** What the demo model answers next. */
export type DemoStep =
  | {
      kind: "tool-call";
      preamble: string;
      callId: string;
      name: string;
      args: Record<string, unknown>;
      /** Further calls of the same answer (`spawn N: goal` spawns N sub-sessions at once). */
      more?: { callId: string; name: string; args: Record<string, unknown> }[];
    }
  | { kind: "answer"; text: string };

/** Decide the demo's next answer from the conversation alone. */
export function planDemoStep(request: ModelRequest): DemoStep {
  const { messages } = request;
  const lastUserIndex = messages.findLastIndex((m) => m.role === "user");
  const lastUser = messages[lastUserIndex];
  const task = lastUser?.role === "user" ? lastUser.content : "";

  if (isSummaryRequest(request)) return { kind: "answer", text: buildSummary(messages) };

  const results = messages.slice(lastUserIndex + 1).flatMap((m) => (m.role === "tool" ? m.content : []));
  const available = new Set(request.tools.map((t) => t.name));
  // "spawn: <goal>" (or "spawn N: <goal>"): the demo delegates the goal to sub-sessions.
  const spawn = /^spawn(?: (\d))?:\s*([\s\S]+)$/.exec(task.trim());
  if (spawn && available.has("spawn_session") && results.length === 0) {
    const n = Math.max(1, Number(spawn[1] ?? 1));
    const base = `demo-${countToolCalls(messages) + 1}-${fnv1a(JSON.stringify(messages))}`;
    const calls = Array.from({ length: n }, (_, i) => ({
      callId: `${base}-${i}`,
      name: "spawn_session",
      args: { goal: spawn[2]!.trim() },
    }));
    return {
      kind: "tool-call",
      preamble: `${DEMO_LABEL} I'll hand this to ${n === 1 ? "a sub-session" : `${n} sub-sessions`}.`,
      ...calls[0]!,
      more: calls.slice(1),
    };
  }
  // "remember …", "what do you remember about …": the demo uses the session's memory.
  const memory = memoryCallFor(task, available);
  if (memory) {
    const answered = results.find((r) => r.name === memory.name);
    if (answered) return { kind: "answer", text: memoryAnswer(answered, DEMO_LABEL) };
    return {
      kind: "tool-call",
      preamble: `${DEMO_LABEL} ${memory.preamble}`,
      callId: `demo-${countToolCalls(messages) + 1}-${fnv1a(JSON.stringify(messages))}`,
      name: memory.name,
      args: memory.args,
    };
  }
  // "use the <name> skill": the demo loads it, then answers as it says (./demo-skill.ts).
  const skill = available.has("load_skill") ? skillAskedIn(task) : null;
  if (skill) {
    if (results.length > 0)
      return { kind: "answer", text: answerWithSkill(DEMO_LABEL, skill.name, skill.request, results[0]!) };
    return {
      kind: "tool-call",
      preamble: `${DEMO_LABEL} I'll load the ${skill.name} skill first.`,
      callId: `demo-${countToolCalls(messages) + 1}-${fnv1a(JSON.stringify(messages))}`,
      name: "load_skill",
      args: { name: skill.name },
    };
  }
  // "use <tool>": the demo calls that tool once, with arguments built from its input schema.
  const named = toolNamedIn(task, request.tools);
  if (named) {
    if (results.length > 0) {
      const turn = messages.slice(lastUserIndex + 1).flatMap((m) => (m.role === "assistant" ? m.content : []));
      return { kind: "answer", text: buildFinalAnswer(task, results, turn) };
    }
    return {
      kind: "tool-call",
      preamble: `${DEMO_LABEL} I'll call ${named.name} as you asked.`,
      callId: `demo-${countToolCalls(messages) + 1}-${fnv1a(JSON.stringify(messages))}`,
      name: named.name,
      args: argsFromSchema(named.parameters),
    };
  }
  const sequence = DEMO_TOOL_SEQUENCE.filter((name) => available.has(name));
  const next = sequence[results.length];
  if (next === undefined) {
    const turn = messages.slice(lastUserIndex + 1).flatMap((m) => (m.role === "assistant" ? m.content : []));
    return { kind: "answer", text: buildFinalAnswer(task, results, turn) };
  }

  const word = pickSearchWord(task);
  const callId = `demo-${countToolCalls(messages) + 1}-${fnv1a(JSON.stringify(messages))}`;
  switch (next) {
    case "write_file":
      return {
        kind: "tool-call",
        preamble: `${DEMO_LABEL} I'll start by writing your task to ${DEMO_NOTE_PATH}.`,
        callId,
        name: next,
        args: { path: DEMO_NOTE_PATH, content: buildNote(task) },
      };
    case "list_files":
      return { kind: "tool-call", preamble: "Now let me list the workspace.", callId, name: next, args: {} };
    case "read_file":
      return {
        kind: "tool-call",
        preamble: `Reading ${DEMO_NOTE_PATH} back.`,
        callId,
        name: next,
        args: { path: DEMO_NOTE_PATH },
      };
    case "search_files":
      return {
        kind: "tool-call",
        preamble: `Searching the workspace for "${word}".`,
        callId,
        name: next,
        args: { pattern: word },
      };
  }
}

/** The offline demo provider. `chunkDelayMs` paces the text so the console shows it streaming. */
export function createDemoProvider(options: { chunkDelayMs?: number } = {}): ModelProvider {
  const delayMs = options.chunkDelayMs ?? 15;
  return {
    name: "demo",
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelPart> {
      signal.throwIfAborted();
      const step = planDemoStep(request);
      const text = step.kind === "answer" ? step.text : step.preamble;
      for (const chunk of splitIntoChunks(text, step.kind === "answer" ? TEXT_CHUNKS : 2)) {
        await sleep(delayMs, signal);
        yield { type: "text-delta", text: chunk };
      }
      let outputChars = text.length;
      if (step.kind === "tool-call") {
        await sleep(delayMs, signal);
        outputChars += step.name.length + JSON.stringify(step.args).length;
        yield { type: "tool-call", callId: step.callId, name: step.name, args: step.args };
        for (const c of step.more ?? []) yield { type: "tool-call", ...c };
      }
      signal.throwIfAborted();
      yield {
        type: "usage",
        inputTokens: Math.ceil(JSON.stringify(request).length / 4),
        outputTokens: Math.ceil(outputChars / 4),
      };
      yield { type: "finish", reason: step.kind === "tool-call" ? "tool-calls" : "stop" };
    },
  };
}

/**
 * A compaction request (docs/API.md §1, §7.29): highwater's send no tools. Decided by the request's
 * shape only, never by words in the user's text: a user who asks for a summary in an ordinary
 * turn gets the ordinary tool walk, and a compaction request needs no magic word.
 */
function isSummaryRequest(request: ModelRequest): boolean {
  return request.tools.length === 0;
}

/** The longest word of four or more letters (first wins on ties), else "Task", which the note always contains. */
export function pickSearchWord(task: string): string {
  let best = "";
  for (const word of task.match(/[\p{L}\p{N}_]{4,}/gu) ?? []) if (word.length > best.length) best = word;
  return best || "Task";
}

function countToolCalls(messages: NeutralMessage[]): number {
  let count = 0;
  for (const m of messages) if (m.role === "assistant") for (const p of m.content) if (p.type === "tool-call") count++;
  return count;
}

/**
 * Ids must stay unique for the whole session, also after compaction has dropped earlier calls
 * from the request, so the count is paired with a hash of the conversation.
 */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function splitIntoChunks(text: string, count: number): string[] {
  const words = text.split(/(?<=\s)/);
  const size = Math.max(1, Math.ceil(words.length / count));
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += size) chunks.push(words.slice(i, i + size).join(""));
  return chunks;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
