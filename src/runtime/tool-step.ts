/** One tool step, carried out: T1, run, T2 (docs/design.md §4), or a re-run after recovery with `toolRecovery: rerun`. */

import { lazyDeadline } from "../contract";
import type { CallState } from "../projections";
import {
  applyFileChanges,
  makePlaceholder,
  parseToolArgs,
  redactSecrets,
  serializeToolResponse,
  thrownOutcome,
  utf8ByteLength,
} from "../tools";
import type { ToolDefinition, ToolResult } from "../tools/types";
import { spawnChild } from "./child-calls";
import type { RuntimeCtx } from "./deps";
import {
  type Base,
  callIdempotencyKey,
  dispatchDraft,
  invalidCallDrafts,
  responseDraft,
  unavailableCallDrafts,
} from "./drafts";
import { failpoint, failpointArmed } from "./failpoints";
import { askOverStream, roundAnswers, roundDrafts, serverOf } from "./inputs";
import { newRemoteSend, recordRemoteTask } from "./remote";
import { type CallSecrets, callSecrets } from "./tool-secrets";

/**
 * Runs the call and commits its outcome. `mode`: `true` a re-run after recovery, `"continue"` the
 * call made again with the answers to its server's questions. Always returns true: the loop goes
 * on to the next step.
 */
export async function runToolStep(
  rt: RuntimeCtx,
  call: CallState,
  base: Base,
  mode: boolean | "continue",
): Promise<boolean> {
  const rerun = mode === true;
  const tool = rt.toolFor(call.name);
  const parsed = tool ? parseToolArgs(tool, call.args) : null;
  // A re-run sends the key recorded at dispatch (an older log may hold another format).
  const idempotencyKey = callIdempotencyKey(call, rt.deps.sessionId);
  const unavailableServer = tool ? null : rt.unavailableServerOf(call.name);
  if (unavailableServer) {
    rt.commit(unavailableCallDrafts(call, base, idempotencyKey, unavailableServer));
    return true;
  }
  if (!tool || !parsed?.ok) {
    const issues = !tool
      ? [{ message: `unknown or disabled tool: ${call.name}` }]
      : parsed && !parsed.ok
        ? parsed.issues
        : [];
    rt.commit(invalidCallDrafts(call, base, idempotencyKey, issues));
    return true;
  }
  const args = parsed.args;
  const server = serverOf(tool.source, call.name);
  // The head after this run's own T1: while nothing else is committed, the call is still open.
  let dispatchedAt: number | null = null;
  if (mode === false) {
    dispatchedAt = rt.commit([dispatchDraft(call, base, tool.effect(args), idempotencyKey)]).at(-1)?.seq ?? null;
    await rt.failpoint("F4");
    if (rt.summary?.children?.spawnedBy) await rt.failpoint("F13");
  }
  // A first run is known from its dispatch; a re-run's row tells a restart that it died again (./under-way.ts).
  rt.underWay.start({ callId: call.callId }, rerun);
  const limit = lazyDeadline(tool.timeoutMs ?? rt.policy.toolTimeoutMs, rt.stops);
  const { signal } = limit;
  const secrets = callSecrets(rt.deps.env ?? {});
  // A remote tool's send is given its wait and notification token (docs/design.md#remote-calls).
  const remote = tool.remote ? newRemoteSend(rt, call.callId) : undefined;
  let result: ToolResult;
  try {
    const running = tool.run(args, {
      sessionId: rt.deps.sessionId,
      callId: call.callId,
      callSeq: call.seq,
      idempotencyKey,
      ...(rt.summary?.directoryId ? { directoryId: rt.summary.directoryId } : {}),
      signal,
      sql: rt.deps.sql,
      blobs: rt.deps.store.blobs,
      httpAllowedHosts: rt.deps.config.httpAllowedHosts,
      fetch: toolFetch(rt),
      env: rt.deps.env ?? {},
      secret: secrets.read,
      httpSecretHosts: secrets.httpHosts,
      spawnChild: (a) => spawnChild(rt, call, a),
      ...(remote ? { remote } : {}),
      httpDeniedHosts: rt.deniedHosts(),
      ...(mode === "continue" ? { input: roundAnswers(call) } : {}),
      ask: askOverStream(rt, call, base, server, signal),
    });
    // A call that answers at once needs no timer (src/contract/deadline.ts).
    limit.watch(running);
    await runningFailpoint(rt, tool, running);
    result = await running;
  } catch (err) {
    result = thrownOutcome(err, signal, tool.effect(args));
  } finally {
    limit.clear();
  }
  result = redacted(result, secrets);
  if (result.awaitInput && callStillOpen(rt, call.callId, base.turnId, dispatchedAt)) {
    // The server asks first (2026-07-28): the questions are recorded and the run waits for answers.
    rt.underWay.end();
    rt.commit(roundDrafts(call, base, server, result.awaitInput));
    return true;
  }
  if (result.awaitChild) {
    // spawn_session: the response is the child's report (docs/API.md §6); the run waits for it.
    rt.underWay.end();
    await rt.failpoint("F12");
    return true;
  }
  await rt.failpoint("F6");
  if (result.remoteTask && remote) {
    // The response comes with the task's outcome; the run waits for it (docs/design.md#remote-calls).
    await recordRemoteTask(rt, call, base, remote, result.remoteTask, rerun);
    return true;
  }
  // A stop (or another slice) may have answered this call meanwhile: a late outcome is dropped.
  if (!callStillOpen(rt, call.callId, base.turnId, dispatchedAt)) {
    rt.underWay.end();
    return true;
  }
  await commitOutcome(rt, call, { ...base, invocationId: call.invocationId }, result, rerun);
  await rt.failpoint("F7");
  return true;
}

/** Fetch for tools; the F5 failpoint fires once the external request has left. */
function toolFetch(rt: RuntimeCtx): typeof fetch {
  const f = rt.deps.fetch;
  const config = rt.deps.config;
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const pending = f(input, init);
    if (failpointArmed(config, "F5")) {
      // Give the request time to reach the external system, then stop here (crash tests).
      await new Promise((r) => setTimeout(r, 300));
      await failpoint(config, "F5");
    }
    return pending;
  }) as typeof fetch;
}

/**
 * F5 for a tool that makes its external call without the runtime's fetch (a deployment's own
 * tool, a memory tool's RPC): the call has been running a moment, its request is in flight.
 */
async function runningFailpoint(rt: RuntimeCtx, tool: ToolDefinition<unknown>, running: Promise<unknown>) {
  if ((tool.source !== "custom" && !tool.callsOut) || !failpointArmed(rt.deps.config, "F5")) return;
  running.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  await rt.failpoint("F5");
}

/** The result with every secret value the call could have seen replaced by `[secret:NAME]` (docs/API.md#secrets). */
function redacted(result: ToolResult, secrets: CallSecrets): ToolResult {
  const values = secrets.values();
  if (Object.keys(values).length === 0) return result;
  return { ...result, response: redactSecrets(result.response, values) };
}

/**
 * Whether the call may still be answered by this run: its turn is open and no outcome for it was
 * committed meanwhile. When the head is still this run's own T1 (`dispatchedAt`), nothing was
 * committed since the dispatch, so the log needs no read.
 */
function callStillOpen(rt: RuntimeCtx, callId: string, turnId: string, dispatchedAt: number | null): boolean {
  if (rt.summary?.openTurn?.turnId !== turnId) return false;
  if (dispatchedAt !== null && rt.deps.store.head().highWater === dispatchedAt) return true;
  return !rt.deps.store.readCallOutcomes(callId).some((e) => e.content?.type === "functionResponse");
}

/** T2: archive a large result first, then commit the outcome (and its workspace changes) in one block. */
async function commitOutcome(
  rt: RuntimeCtx,
  call: CallState,
  ids: Base & { invocationId?: string },
  result: ToolResult,
  rerun: boolean,
) {
  const text = serializeToolResponse(result.response);
  const bytes = utf8ByteLength(text);
  const threshold = rt.summary?.options.offloadThresholdBytes ?? rt.deps.config.offloadThresholdBytes;
  let stateDelta: Record<string, unknown> | undefined = result.status === "ok" ? result.stateDelta : undefined;
  if (bytes > threshold) {
    // Archive first (its own transaction, read back and checked), placeholder second.
    const mediaType = typeof result.response === "string" ? "text/plain; charset=utf-8" : "application/json";
    const meta = rt.deps.store.blobs.put(text, mediaType);
    stateDelta = {
      ...stateDelta,
      offload: { sha256: meta.sha256, bytes: meta.bytes, preview: makePlaceholder(call.name, text, meta).preview },
    };
  }
  const actions = {
    ...(rerun ? { toolRecovery: { callId: call.callId, strategy: "rerun" as const } } : {}),
    ...(stateDelta ? { stateDelta } : {}),
  };
  // The response, the end of what was under way and the workspace's changes in one block; a
  // response with neither a stored row nor changes is one INSERT.
  const changes = result.status === "ok" && result.fileChanges?.length ? result.fileChanges : null;
  const response = [
    responseDraft(call, ids, result.status, result.response, Object.keys(actions).length > 0 ? actions : undefined),
  ];
  if (changes || rt.underWay.stored)
    rt.commit(response, ([e]) => {
      rt.underWay.end();
      if (changes) applyFileChanges(rt.deps.sql, changes, e!.seq, e!.at);
    });
  else {
    rt.commit(response);
    rt.underWay.end();
  }
  if (bytes > threshold) await rt.failpoint("F10");
}
