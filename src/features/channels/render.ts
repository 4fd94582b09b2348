/**
 * A session's report as the words posted to its thread (docs/API.md#channels). Pure.
 */
import type { Session } from "../../contract";
import type { Report } from "./reports";

/** The text of a report's post (an approval's card body is `approvalBody`). */
export function reportText(r: Report): string {
  switch (r.kind) {
    case "answer":
      return r.text;
    case "stopped":
      return "Stopped. The turn was closed before it finished.";
    case "failed":
      return `The turn failed: ${r.message}`;
    case "approval":
      return `Approval needed: ${r.tool} ${r.args}`;
    case "recovery": {
      const parts = [
        r.rerun.length ? `re-ran ${r.rerun.length} call(s)` : "",
        r.needsReview.length ? `${r.needsReview.length} call(s) may or may not have happened and need review` : "",
      ].filter(Boolean);
      return `I was interrupted (a restart) and picked up where I stopped${parts.length ? `: ${parts.join("; ")}` : ""}.`;
    }
    case "wait":
      return `Waiting${r.reason ? `: ${r.reason}` : "."} Reply here or resume the run to go on.`;
    case "progress":
      return r.text;
  }
}

export function approvalBody(r: Extract<Report, { kind: "approval" }>): string {
  return `The agent wants to call \`${r.tool}\` with ${r.args}\nargs digest ${r.argsDigest.slice(0, 12)}…`;
}

const pct = (n: number) => `${Math.round(n * 100)}%`;

/** `status` in the thread: what the session is doing and its context meter, in words. */
export function statusText(
  s: Session,
  context: { estimatedTokens: number; threshold: number; contextWindow: number } | null,
): string {
  const doing: Record<Session["status"], string> = {
    idle: "idle: nothing is running",
    running: "working on the turn",
    waiting_approval: `waiting for an approval (${s.pendingApprovals.map((p) => p.tool).join(", ")})`,
    waiting: `waiting${s.wait?.reason ? `: ${s.wait.reason}` : ""}`,
    waiting_input: "waiting for an answer to a tool server's question (answer it in the console)",
    recovering: "recovering after a restart",
    failed: "idle: the last turn failed",
  };
  const meter = context
    ? `context ${context.estimatedTokens.toLocaleString("en-US")} of ${context.contextWindow.toLocaleString("en-US")} tokens (${pct(context.estimatedTokens / context.contextWindow)} of the window; it compacts at ${pct(context.threshold / context.contextWindow)})`
    : "context unknown";
  return `Status: ${doing[s.status]}; ${meter}; ${s.usage.inputTokens + s.usage.outputTokens} tokens used so far.`;
}

/** A text command in a thread (for platforms without buttons too). */
export type Command = "stop" | "status" | "approve" | "reject";

export function commandOf(text: string): Command | null {
  const t = text.trim().toLowerCase().replace(/[.!]$/, "");
  return t === "stop" || t === "status" || t === "approve" || t === "reject" ? t : null;
}

export const REFUSAL = "Sorry, I can only take requests from people this channel allows.";
