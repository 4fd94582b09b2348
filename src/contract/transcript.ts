import type { Event } from "./event";

/** `GET /transcript` items: the log folded for people. */
export type TranscriptItem =
  | { kind: "message"; seq: number; role: "user" | "assistant"; text: string; source?: string; turnId?: string }
  | { kind: "thinking"; seq: number; text: string }
  | {
      kind: "tool";
      seq: number;
      callId: string;
      tool: string;
      args: unknown;
      state: "pending" | "waiting_approval" | "waiting_input" | "running" | "ok" | "error" | "interrupted" | "rejected";
      response?: unknown;
      recovery?: "rerun" | "interrupted";
      requestId?: string;
      /** The last question its server asked during the call, and its answer once given. */
      input?: {
        requestId: string;
        server: string;
        message: string;
        schema?: Record<string, unknown>;
        url?: string;
        answer?: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
      };
      /**
       * The remote task the call started (docs/API.md#a2a-agents): where it lives (`{ agent }`,
       * `{ server }`), its id, its last known state, and the question it asks while `input-required`.
       */
      remote?: { target: Record<string, string>; taskId: string; state: string; ask?: string };
    }
  | { kind: "error"; seq: number; code: string; message: string }
  /** The three lists of the notice (docs/API.md#recovery-notices): calls re-run, calls to review, model calls issued again. */
  | { kind: "recovery"; seq: number; rerun: string[]; needsReview: string[]; reissued: string[] }
  | { kind: "turn"; seq: number; turnId?: string; reason: "completed" | "stopped" | "failed" }
  /** A work-record revision or entry written over HTTP (the agent's own show as its tool calls). */
  | { kind: "record"; seq: number; topic: string; revision?: number; entry?: number }
  /** Something that happened outside any turn, said in a sentence (a remote task's late result). */
  | { kind: "note"; seq: number; text: string; callId?: string }
  /** Seq 1 of a fork: where it came from. */
  | { kind: "fork"; seq: number; sessionId: string; throughSeq: number; digest: string };

/** The three lists of a recovery notice, as `Session.recoveryNotice` and the transcript's `recovery` item hold them. */
export type RecoveryLists = { rerun: string[]; needsReview: string[]; reissued: string[] };

/**
 * The three lists of a `stateDelta.recoveryNotice` (docs/API.md#recovery-notices); a notice
 * written before `reissued` existed has none.
 */
export function recoveryListsOf(e: Event): RecoveryLists | null {
  const n = e.actions?.stateDelta?.recoveryNotice as Partial<RecoveryLists> | undefined;
  if (!n) return null;
  return { rerun: n.rerun ?? [], needsReview: n.needsReview ?? [], reissued: n.reissued ?? [] };
}

/**
 * The note a late result (`stateDelta.lateResult`, docs/API.md#a2a-agents) shows: a remote task
 * that ended after its call's run had closed; null for any other event.
 */
export function lateResultNote(e: Event): { text: string; callId: string } | null {
  const r = e.actions?.stateDelta?.lateResult as
    | { callId?: unknown; taskId?: unknown; state?: unknown; response?: { text?: unknown; message?: unknown } }
    | undefined;
  if (!r || typeof r.callId !== "string") return null;
  const said =
    typeof r.response?.text === "string"
      ? r.response.text
      : typeof r.response?.message === "string"
        ? r.response.message
        : "";
  const text = `The remote task ${String(r.taskId)} of call ${r.callId} ended ${String(r.state)} after its run had closed${said ? `: ${said}` : "."}`;
  return { text, callId: r.callId };
}

/** One sentence for a recovery notice, from its three lists: what the banner and the transcript line both say. */
export function describeRecovery(n: RecoveryLists): string {
  const parts = [
    `${n.rerun.length} call(s) re-run`,
    `${n.needsReview.length} need review`,
    `${n.reissued.length} model call(s) issued again`,
  ];
  return `Recovered after a restart: ${parts.join(", ")}.`;
}
