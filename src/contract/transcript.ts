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
      state: "pending" | "waiting_approval" | "running" | "ok" | "error" | "interrupted" | "rejected";
      response?: unknown;
      recovery?: "rerun" | "interrupted";
      requestId?: string;
    }
  | { kind: "error"; seq: number; code: string; message: string }
  | { kind: "recovery"; seq: number; rerun: string[]; needsReview: string[] }
  | { kind: "turn"; seq: number; turnId?: string; reason: "completed" | "stopped" | "failed" }
  /** A work-record revision or entry written over HTTP (the agent's own show as its tool calls). */
  | { kind: "record"; seq: number; topic: string; revision?: number; entry?: number }
  /** Seq 1 of a fork: where it came from. */
  | { kind: "fork"; seq: number; sessionId: string; throughSeq: number; digest: string };
