/**
 * The demo model and skills (docs/API.md#skills): "use the <name> skill" loads that skill with
 * `load_skill`, then answers as the skill says: its ```template block with the request in it,
 * or, without one, the start of its instructions.
 */
import type { ToolResultPart } from "./types";

const ASKED = /\buse the ([a-z0-9-]{1,64}) skill\b[\s:,.-]*/i;

/** The skill a message asks for, and the message without that phrase; null when it asks for none. */
export function skillAskedIn(task: string): { name: string; request: string } | null {
  const m = ASKED.exec(task);
  if (!m) return null;
  const request = (task.slice(0, m.index) + task.slice(m.index + m[0].length)).trim().replace(/^(to|and)\s+/i, "");
  return { name: m[1]!.toLowerCase(), request: request || "(no request given)" };
}

/** The answer after `load_skill` answered `result`. */
export function answerWithSkill(label: string, name: string, request: string, result: ToolResultPart): string {
  const output = result.output as { content?: unknown } | null;
  if (result.status !== "ok" || typeof output?.content !== "string")
    return `${label} I could not load the ${name} skill: ${JSON.stringify(result.output ?? null).slice(0, 300)}`;
  const template = /```template\n([\s\S]*?)```/.exec(output.content)?.[1];
  if (template)
    return `${label} Following the ${name} skill:\n\n${template.replaceAll("{{request}}", request).trimEnd()}`;
  return `${label} I loaded the ${name} skill. It says:\n\n${output.content.slice(0, 600).trimEnd()}`;
}
