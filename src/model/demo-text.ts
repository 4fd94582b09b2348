/**
 * What the demo model writes (./demo.ts): the compaction summary, the closing answer of a tool
 * walk and the note it saves. Pure text from the request.
 */
import type { AssistantPart, NeutralMessage, ToolResultPart } from "./types";

export const DEMO_NOTE_PATH = "notes/task.md";
export const DEMO_LABEL = "[demo model]";

export function buildSummary(messages: NeutralMessage[]): string {
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

export function buildFinalAnswer(task: string, results: ToolResultPart[], turn: AssistantPart[]): string {
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

export function buildNote(task: string): string {
  return `# Task\n\n${task.trim() || "(empty message)"}\n\n_Written by the highwater demo model._\n`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
