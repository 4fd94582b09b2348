/**
 * The built-in demo model: offline and deterministic, so `npm start` shows a working agent with
 * no key. Its answer is a pure function of the request; only the pacing of the chunks uses time.
 */
import { argsFromSchema, toolNamedIn } from "./demo-args";
import { memoryAnswer, memoryCallFor } from "./demo-memory";
import { answerWithSkill, skillAskedIn } from "./demo-skill";
import type { AssistantPart, ModelPart, ModelProvider, ModelRequest, NeutralMessage, ToolResultPart } from "./types";

export const DEMO_NOTE_PATH = "notes/task.md";
export const DEMO_LABEL = "[demo model]";

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

function buildSummary(messages: NeutralMessage[]): string {
  // The closing instruction of a compaction request is not the user's goal.
  const body =
    messages.at(-1)?.role === "user" && messages.filter((m) => m.role === "user").length > 1
      ? messages.slice(0, -1)
      : messages;
  const users = body.flatMap((m) => (m.role === "user" ? [m.content] : []));
  const calls = messages
    .flatMap((m) => (m.role === "assistant" ? m.content : []))
    .filter((p) => p.type === "tool-call");
  const files = [
    ...new Set(
      calls.flatMap((c) => {
        const path = (c.args as { path?: unknown } | null)?.path;
        return typeof path === "string" ? [path] : [];
      }),
    ),
  ];
  const goal = users.at(-1) ?? "(no user request yet)";
  return [
    `${DEMO_LABEL} Summary of the conversation so far (written by the built-in demo model).`,
    "",
    "## Goal and deliverable",
    truncate(goal, 300),
    "",
    "## Progress and next steps",
    `${users.length} user message(s) and ${calls.length} tool call(s) so far${calls.length ? `: ${calls.map((c) => c.name).join(", ")}` : ""}. Next: answer the latest request.`,
    "",
    "## Constraints, decisions and facts",
    "The demo model is offline and deterministic; it walks through the workspace tools.",
    "",
    "## Open items",
    "None recorded.",
    "",
    "## Key files and event references",
    files.length ? files.join(", ") : "None.",
  ].join("\n");
}

function buildFinalAnswer(task: string, results: ToolResultPart[], turn: AssistantPart[]): string {
  const argsById = new Map(turn.flatMap((p) => (p.type === "tool-call" ? [[p.callId, p.args] as const] : [])));
  const lines = [
    `${DEMO_LABEL} This answer comes from highwater's built-in demo model: offline, deterministic, no API key involved.`,
    results.length > 0
      ? "Here is what I did with your message:"
      : "No workspace tools were available, so I only read your message.",
    ...results.map((r) => {
      const outcome = r.status === "ok" ? "ok" : `${r.status}: ${truncate(JSON.stringify(r.output ?? null), 120)}`;
      const line = `- ${describeCall(r.name, argsById.get(r.callId))} (${r.name}, ${outcome})`;
      // A tool outside the workspace walk: show what it answered.
      return r.status === "ok" && !KNOWN_CALLS.has(r.name) ? `${line}: ${truncate(outputText(r.output), 300)}` : line;
    }),
    task.trim() === "" ? "There was no task text to work on." : `Your task: "${truncate(task.trim(), 200)}".`,
    "Set MODEL_BASE_URL and MODEL_API_KEY (or MODEL_PROVIDER) to talk to a real model.",
  ];
  return lines.join("\n");
}

const KNOWN_CALLS = new Set(["write_file", "list_files", "read_file", "search_files", "spawn_session"]);

function outputText(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output ?? null);
}

function describeCall(name: string, args: unknown): string {
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  switch (name) {
    case "write_file":
      return `wrote the task to ${String(a.path ?? DEMO_NOTE_PATH)}`;
    case "list_files":
      return "listed the workspace";
    case "read_file":
      return `read ${String(a.path ?? DEMO_NOTE_PATH)} back`;
    case "search_files":
      return `searched the workspace for "${String(a.pattern ?? "")}"`;
    case "spawn_session":
      return `handed "${truncate(String(a.goal ?? ""), 80)}" to a sub-session`;
    default:
      return `called ${name} with ${truncate(JSON.stringify(a), 120)}`;
  }
}

function buildNote(task: string): string {
  return `# Task\n\n${task.trim() || "(empty message)"}\n\n_Written by the highwater demo model._\n`;
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

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
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
