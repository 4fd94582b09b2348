/**
 * What a channel-born session reports to its thread (docs/API.md#channels), read from its
 * committed events: a closed turn's answer, a stop, a failure, an approval request, a recovery
 * notice, a wait, and progress while a turn works. Pure: `(event, turn so far) → report`.
 */
import { argsDigest, type Event } from "../../contract";

export type Report =
  | { kind: "answer"; turnId: string; text: string }
  | { kind: "stopped"; turnId: string }
  | { kind: "failed"; turnId: string; message: string }
  | { kind: "approval"; requestId: string; tool: string; args: string; argsDigest: string }
  | { kind: "recovery"; rerun: string[]; needsReview: string[] }
  | { kind: "wait"; reason: string | null }
  | { kind: "progress"; turnId: string; text: string };

/** What a turn said, read from the log when it closes: its last visible model text and last error. */
export type TurnLookup = {
  answer(turnId: string, seq: number): string | null;
  error(turnId: string, seq: number): string | null;
};

/** The longest text a post carries (Slack's limit for a message's text is 40,000; a thread reads better shorter). */
export const POST_TEXT_LIMIT = 3_000;

export function clip(text: string, limit = POST_TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

const isBlob = (v: unknown) => typeof v === "object" && v !== null && "$blob" in v;

/** The report an event makes, else null; a closed turn's words are looked up in the log. */
export function reportOf(e: Event, turn: TurnLookup): Report | null {
  const a = e.actions;
  const turnId = e.turnId ?? "";
  if (a?.turnClose) {
    if (a.turnClose.reason === "completed")
      return { kind: "answer", turnId, text: clip(turn.answer(turnId, e.seq) ?? "(no answer text)") };
    if (a.turnClose.reason === "stopped") return { kind: "stopped", turnId };
    return { kind: "failed", turnId, message: clip(turn.error(turnId, e.seq) ?? "the turn failed") };
  }
  if (a?.permissionRequest) {
    const r = a.permissionRequest;
    const args = isBlob(r.args) ? "(large arguments: read them in the console)" : JSON.stringify(r.args ?? null);
    return {
      kind: "approval",
      requestId: r.requestId,
      tool: r.tool,
      args: clip(args, 1_500),
      argsDigest: argsDigest(r.args),
    };
  }
  const delta = a?.stateDelta;
  const notice = delta?.recoveryNotice as { rerun?: string[]; needsReview?: string[] } | undefined;
  if (notice) return { kind: "recovery", rerun: notice.rerun ?? [], needsReview: notice.needsReview ?? [] };
  const wait = delta?.wait as { reason?: string } | undefined;
  if (wait) return { kind: "wait", reason: typeof wait.reason === "string" ? wait.reason : null };
  if (delta?.budgetWait) return { kind: "wait", reason: "the turn's step budget is spent" };
  if (a?.toolDispatch && !a.permissionRequest)
    return { kind: "progress", turnId, text: `Working: ${a.toolDispatch.tool}…` };
  return null;
}

/**
 * Whether an event can make a report (the relay's `touches`): a model's answer text cannot (the
 * closed turn reads it), so an ordinary commit of an answer stays one INSERT.
 */
export function mayReport(e: Event): boolean {
  const a = e.actions;
  return (
    !!a?.turnClose ||
    !!a?.permissionRequest ||
    !!a?.toolDispatch ||
    !!a?.stateDelta?.recoveryNotice ||
    !!a?.stateDelta?.wait ||
    !!a?.stateDelta?.budgetWait ||
    !!a?.stateDelta?.[BIND_KEY]
  );
}

/** The hidden `stateDelta` key that binds a session to its thread. */
export const BIND_KEY = "channelThread";
