/**
 * Remote calls (docs/design.md#remote-calls), the doing part: what a remote tool's send is given,
 * the record of its task, polling from the alarm with backoff, a push notification, and the
 * best-effort cancel of a stop. Every decision is read from the log (`projections/remote.ts`):
 * only the task recorded for the open wait releases it, once.
 */
import { ApiError } from "../contract";
import { sha256Hex } from "../log";
import { type CallState, noticeTarget, type RemoteRecord, releases } from "../projections";
import { idempotencyKeyFor, redactSecrets } from "../tools";
import type { RemoteSendContext, RemoteTaskStatus, ToolDefinition, ToolResult } from "../tools/types";
import type { AlarmOwner } from "./alarm-owner";
import type { RuntimeCtx } from "./deps";
import { type Base, hidden } from "./draft-base";
import { recordAsk, recordTaskQuestion, taskAnswerOf } from "./remote-asks";
import { cancelRemote, withRemoteContext } from "./remote-context";
import { isTerminal, lateResultDraft, remoteOutcomeDraft, remoteTaskDraft, timedOut } from "./remote-drafts";
import { writeInflight } from "./state";

/** A fresh wait and notification token for a remote send; the log keeps only the token's sha256. */
export function newRemoteSend(rt: RuntimeCtx, callId: string): RemoteSendContext {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const secret = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return {
    waitId: `remote:${callId}:${crypto.randomUUID().slice(0, 8)}`,
    notifyToken: `${rt.deps.sessionId}.${secret}`,
  };
}

/**
 * After a send that started a remote task: its record, which starts the run's wait. A call a stop
 * answered meanwhile records nothing; its task is cancelled (best effort).
 */
export async function recordRemoteTask(
  rt: RuntimeCtx,
  call: CallState,
  base: Base,
  send: RemoteSendContext,
  task: NonNullable<ToolResult["remoteTask"]>,
  rerun: boolean,
): Promise<void> {
  writeInflight(rt.deps.sql, null);
  const open =
    rt.summary?.openTurn?.turnId === base.turnId &&
    !rt.deps.store.readCallOutcomes(call.callId).some((e) => e.content?.type === "functionResponse");
  if (!open) {
    await cancelRemote(rt, rt.toolFor(call.name)?.remote, call.callId, task.taskId);
    return;
  }
  rt.commit([
    remoteTaskDraft(
      { ...base, invocationId: call.invocationId },
      {
        callId: call.callId,
        tool: call.name,
        taskId: task.taskId,
        waitId: send.waitId,
        notify: sha256Hex(send.notifyToken),
        target: task.target,
        ...(task.timeoutMs !== undefined ? { deadline: rt.now() + task.timeoutMs } : {}),
        ...(rerun ? { rerun: true as const } : {}),
      },
    ),
  ]);
  await rt.failpoint("F16");
}

/** The call a record belongs to: its tool's name and invocation, as its record keeps them. */
function callOf(record: RemoteRecord): { name: string; invocationId?: string } | null {
  return record.tool
    ? { name: record.tool, ...(record.invocationId ? { invocationId: record.invocationId } : {}) }
    : null;
}

function remoteToolOf(rt: RuntimeCtx, record: RemoteRecord): ToolDefinition<unknown> | null {
  const call = callOf(record);
  const tool = call ? rt.toolFor(call.name) : null;
  return tool?.remote ? tool : null;
}

/** Asks the task's state through its tool's port; null when it could not be asked (tried again later). */
async function ask(rt: RuntimeCtx, record: RemoteRecord): Promise<RemoteTaskStatus | null> {
  const tool = remoteToolOf(rt, record);
  if (!tool?.remote) return null;
  const answered = taskAnswerOf(record);
  const port = tool.remote;
  try {
    return await withRemoteContext(rt, record.callId, async (base) => {
      const ctx = { ...base, ...(answered ? { taskAnswer: answered } : {}) };
      const status = await port.poll(record.taskId, ctx);
      return { ...status, response: redactSecrets(status.response, ctx.values()) } as RemoteTaskStatus;
    });
  } catch (err) {
    console.error("highwater: polling a remote task failed; it is polled again later", err);
    return null;
  }
}

/**
 * Records a task's outcome if it is terminal and still owed (docs/API.md#a2a-agents): the
 * response of the call whose wait it is, or a late result for a call a close answered. Decided
 * again from the summary after every await, so a poll and a notification never both record.
 */
export async function recordRemoteStatus(
  rt: RuntimeCtx,
  record: RemoteRecord,
  status: RemoteTaskStatus,
): Promise<boolean> {
  if (status.taskId !== record.taskId || !isTerminal(status.state)) return false;
  await rt.failpoint("F17");
  const s = rt.summary;
  const turn = s?.openTurn;
  if (turn?.wait?.waitId === record.waitId && releases(s?.remote, record.waitId, record.taskId)) {
    const call = callOf(record);
    if (!call) return false;
    const ids = {
      turnId: turn.turnId,
      runId: turn.runId,
      ...(call.invocationId ? { invocationId: call.invocationId } : {}),
    };
    const draft = remoteOutcomeDraft({ callId: record.callId, name: call.name }, ids, record, status);
    if (!draft) return false;
    rt.commit([draft]);
    return true;
  }
  if (s?.remote?.late.some((r) => r.callId === record.callId && r.taskId === record.taskId)) {
    rt.commit([lateResultDraft(record, status)]);
    return true;
  }
  return false;
}

/**
 * The alarm's part for remote calls: polls the task the open turn waits for when its backoff is
 * due (armed for the next poll before asking, so a kill mid-poll comes back). True when an
 * outcome was recorded (the loop is due again).
 */
export async function pollRemote(rt: RuntimeCtx & { arm(): Promise<void> }, owner: AlarmOwner): Promise<boolean> {
  const s = rt.summary;
  const wait = s?.openTurn?.wait;
  if (wait?.kind !== "remote") return false;
  const record = s?.remote?.waiting.find((r) => r.waitId === wait.waitId);
  const due = owner.remoteDue(s ?? null, rt.now());
  if (!record || due === null || due > rt.now()) return false;
  if (record.deadline !== undefined && rt.now() >= record.deadline) return timeOut(rt, owner, record);
  owner.remotePolled(record.waitId, rt.now(), record.answerSeq ?? record.question?.answerSeq);
  await rt.arm();
  const answered = record.answerSeq !== undefined ? await sendAnswer(rt, record) : null;
  const status = answered && isTerminal(answered.state) ? answered : await ask(rt, record);
  if (!status) return false;
  if (status.state === "input-required") {
    if (status.question) recordTaskQuestion(rt, record, status.question, record.question?.answerSeq);
    else recordAsk(rt, record, status);
    return false;
  }
  if (!(await recordRemoteStatus(rt, record, status))) return false;
  owner.kick();
  return true;
}

/** A task past its deadline (docs/API.md#mcp-tasks): cancelled (best effort), its call answered `remote_timeout`. */
async function timeOut(rt: RuntimeCtx, owner: AlarmOwner, record: RemoteRecord): Promise<boolean> {
  await cancelRemote(rt, remoteToolOf(rt, record)?.remote, record.callId, record.taskId);
  if (!(await recordRemoteStatus(rt, record, timedOut(record)))) return false;
  owner.kick();
  return true;
}

/**
 * The user's first message after the task asked goes to the same task (its port's `reply`), under a
 * messageId derived from that message's seq; then `stateDelta.remoteReply` records it was sent.
 * Null when it could not be sent (tried again at the next poll).
 */
async function sendAnswer(rt: RuntimeCtx, record: RemoteRecord): Promise<RemoteTaskStatus | null> {
  const seq = record.answerSeq!;
  const port = remoteToolOf(rt, record)?.remote;
  const reply = port?.reply?.bind(port);
  const e = rt.deps.store.get(seq);
  if (!reply || e?.content?.type !== "text") return null;
  const messageId = idempotencyKeyFor(rt.deps.sessionId, `${record.callId}:answer:${seq}`);
  const text = e.content.text;
  const status = await withRemoteContext(rt, record.callId, (ctx) => reply(record.taskId, text, messageId, ctx)).catch(
    (err: unknown) => {
      console.error("highwater: sending an answer to a remote task failed; it is sent again later", err);
      return null;
    },
  );
  if (!status) return null;
  const turn = rt.summary?.openTurn;
  const current = rt.summary?.remote?.waiting.find((r) => r.callId === record.callId);
  if (!turn || current?.answerSeq !== seq) return null;
  rt.commit([
    hidden(
      { turnId: turn.turnId, runId: turn.runId },
      {
        actions: {
          stateDelta: { remoteReply: { callId: record.callId, taskId: record.taskId, waitId: record.waitId, seq } },
        },
      },
    ),
  ]);
  return status;
}

/**
 * A push notification about a remote task (docs/API.md#a2a-agents): `token` names the wait (only
 * its sha256 is recorded), `taskId` the task it is about. A terminal `status` is recorded as is;
 * anything else makes the task be asked now. A token no open wait or late task holds, or another
 * task, is 404 and records nothing.
 */
/** A push notification as a feature's route hands it over: its token, the task it names, what it says. */
export type RemoteNotice = { token: string; taskId: string | null; status: RemoteTaskStatus | null };

export async function remoteNotice(
  rt: RuntimeCtx & { kick(): Promise<void> },
  input: RemoteNotice,
): Promise<{ recorded: boolean }> {
  const target = noticeTarget(rt.summary?.remote, sha256Hex(input.token), input.taskId);
  if (target.kind === "refused")
    throw new ApiError(
      "not_found",
      target.reason === "other_task"
        ? "this notification names another task than its wait's"
        : "no wait for this token",
    );
  const status = input.status && isTerminal(input.status.state) ? input.status : await ask(rt, target.record);
  if (status?.state === "input-required" && target.kind === "waiting") recordAsk(rt, target.record, status);
  const recorded = status ? await recordRemoteStatus(rt, target.record, status) : false;
  if (recorded) await rt.kick();
  return { recorded };
}

/** A stop's best-effort cancel of the tasks its turn waited for; a cancel the remote confirms is a late result. */
export async function cancelRemoteTasks(rt: RuntimeCtx, records: readonly RemoteRecord[]): Promise<void> {
  for (const record of records) {
    const status = await cancelRemote(rt, remoteToolOf(rt, record)?.remote, record.callId, record.taskId);
    if (status) await recordRemoteStatus(rt, record, status).catch(() => false);
  }
}

/** The cancels a stop started for the remote tasks its turn waited for (best effort), until awaited. */
export class RemoteCancels {
  #pending: Promise<void> | null = null;

  start(rt: RuntimeCtx, waiting: readonly RemoteRecord[]): void {
    if (waiting.length > 0) this.#pending = cancelRemoteTasks(rt, waiting).catch(() => undefined);
  }

  async settled(): Promise<void> {
    const pending = this.#pending;
    this.#pending = null;
    await pending;
  }
}
