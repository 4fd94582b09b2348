/**
 * A task's state read from the log (docs/API.md#a-session-as-an-mcp-server): a task is the turn a
 * message opened or joined, named by that message's seq. Whether the turn closed, how, and its
 * last answer are found in the log, bounded by the turn: the message's row, the `kind` index for
 * its `turnClose`, and the turn's own range read backwards for its last text. Nothing is written.
 */
import { ApiError } from "../../contract";
import type { Event } from "../../log";
import type { Admitted } from "../../session/admission";
import { rows } from "../../storage";

/** What is asked while the turn waits: a pending approval or an open wait. */
export type Asked =
  | { kind: "approval"; requestId: string; tool: string; args: unknown; argsDigest: string }
  | { kind: "wait"; waitId: string; runId: string; waitKind: string; reason: string | null };

export type TaskState = {
  turnId: string;
  /** The message's `at` and the latest event's `at` (ISO-8601). */
  createdAt: string;
  lastUpdatedAt: string;
} & (
  | { state: "working" }
  | { state: "input_required"; asked: Asked[] }
  | { state: "completed"; answer: string }
  | { state: "cancelled" }
  | { state: "failed"; code: string; message: string }
);

type Row = { body: string };

function eventAt(sql: SqlStorage, seq: number): Event | null {
  const row = rows<Row>(sql)`SELECT body FROM events WHERE seq = ${seq}`[0];
  return row ? (JSON.parse(row.body) as Event) : null;
}

/** The turn's last visible model text in seqs `from`..`through`, or "" when it said nothing. */
function lastAnswer(sql: SqlStorage, turnId: string, from: number, through: number): string {
  const row = rows<Row>(sql)`
    SELECT body FROM events WHERE seq >= ${from} AND seq <= ${through} AND author = 'model'
      AND visibility = 'visible' AND json_extract(body, '$.turnId') = ${turnId}
      AND json_extract(body, '$.content.type') = 'text'
    ORDER BY seq DESC LIMIT 1`[0];
  const e = row ? (JSON.parse(row.body) as Event) : null;
  return e?.content?.type === "text" ? e.content.text : "";
}

/** The turn's last error event (why it failed), if any. */
function lastError(sql: SqlStorage, turnId: string, from: number, through: number) {
  const row = rows<Row>(sql)`
    SELECT body FROM events WHERE seq >= ${from} AND seq <= ${through}
      AND json_extract(body, '$.turnId') = ${turnId} AND json_extract(body, '$.content.type') = 'error'
    ORDER BY seq DESC LIMIT 1`[0];
  const e = row ? (JSON.parse(row.body) as Event) : null;
  return e?.content?.type === "error" ? { code: e.content.code, message: e.content.message } : null;
}

/**
 * The state of the task opened by the user message at `seq` of turn `turnId`. An unknown seq, or
 * one that is not a user message of that turn, is 404 (a task id is only ever minted from an
 * answer of `postMessage`).
 */
export function readTaskState({ sql, runtime }: Admitted, input: { turnId: string; seq: number }): TaskState {
  const { turnId, seq } = input;
  const opened = Number.isSafeInteger(seq) && seq > 0 ? eventAt(sql, seq) : null;
  if (!opened || opened.turnId !== turnId || opened.author !== "user") throw new ApiError("not_found", "unknown task");
  const close = rows<Row & { seq: number }>(sql)`
    SELECT seq, body FROM events WHERE kind = 'turnClose' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq >= ${seq}
      AND json_extract(body, '$.turnId') = ${turnId} ORDER BY seq LIMIT 1`[0];
  const session = runtime.session();
  const base = { turnId, createdAt: opened.at, lastUpdatedAt: session.updatedAt };
  if (close) {
    const closing = JSON.parse(close.body) as Event;
    const at = { ...base, lastUpdatedAt: closing.at };
    const reason = closing.actions?.turnClose?.reason;
    if (reason === "completed") return { ...at, state: "completed", answer: lastAnswer(sql, turnId, seq, close.seq) };
    if (reason === "stopped") return { ...at, state: "cancelled" };
    const err = lastError(sql, turnId, seq, close.seq) ?? { code: "failed", message: "the turn failed" };
    return { ...at, state: "failed", ...err };
  }
  const asked: Asked[] = session.pendingApprovals.map((a) => ({
    kind: "approval",
    requestId: a.requestId,
    tool: a.tool,
    args: a.args,
    argsDigest: a.argsDigest,
  }));
  if (session.wait)
    asked.push({
      kind: "wait",
      waitId: session.wait.waitId,
      runId: session.wait.runId,
      waitKind: session.wait.kind,
      reason: session.wait.reason ?? null,
    });
  return asked.length > 0 ? { ...base, state: "input_required", asked } : { ...base, state: "working" };
}
