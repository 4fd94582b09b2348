/**
 * Sub-sessions (docs/API.md §6 `spawn_session`, §7.31), as the driver carries them out: create or
 * re-attach a child, take a child's report exactly once per callId, deliver a child's report and
 * a parent's stops until acknowledged (an outbox kept in the log). Every decision reads the log.
 */
import type { Result } from "../contract";
import type { EventDraft } from "../log";
import type { ModelConfig } from "../model/types";
import {
  type CallState,
  type ChildrenState,
  type CloseReason,
  childResult,
  childWait,
  liveChildren,
  MAX_NESTING,
  MAX_OPEN_CHILDREN,
  parseSpawnedBy,
  type SessionOptions,
  SPAWN_TOOL,
  type SpawnedBy,
} from "../projections";
import { getTool, parseToolArgs } from "../tools";
import type { ToolResult } from "../tools/types";
import type { RuntimeCtx } from "./deps";
import { type Base, responseDraft } from "./drafts";
import { ApiError } from "./errors";

/** What a parent sends to create its child (idempotent: keyed by the parent and callId). */
export type ChildSpawn = {
  parentId: string;
  callId: string;
  depth: number;
  goal: string;
  options: SessionOptions;
  model: ModelConfig;
  directoryId: string;
};

/** A child's report of its goal turn's close. */
export type ChildReport = { callId: string; childId: string; status: CloseReason; result: string | null };

/** The object's reach to other session objects (wired by the Durable Object from its bindings). */
export type ChildrenPort = {
  /** The child's id: derived from this session and the callId. */
  childIdFor(callId: string): string;
  spawn(input: ChildSpawn): Promise<Result<{ sessionId: string; status: string }>>;
  report(parentId: string, input: ChildReport): Promise<Result<{ acked: true }>>;
  /** Stops the call's child (the same derived id as `childIdFor`). */
  stop(callId: string): Promise<Result<unknown>>;
};

/** Retry delay of the outbox after `failures` failed deliveries in a row. */
export function outboxDelay(failures: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1));
}

/** The create a spawn sends, inheriting model, approvals, budget and jurisdiction (docs/API.md §7.31). */
export function buildChildSpawn(
  rt: RuntimeCtx,
  call: { callId: string },
  args: { goal: string; tools?: string[] },
): { ok: true; spawn: ChildSpawn } | { ok: false; code: string; message: string } {
  const s = rt.require();
  const open = liveChildren(s.children, call.callId);
  if (open >= MAX_OPEN_CHILDREN)
    return {
      ok: false,
      code: "too_many_children",
      message: `a session has at most ${MAX_OPEN_CHILDREN} sub-sessions that have not reported; this one has ${open}`,
    };
  const depth = (s.children?.spawnedBy?.depth ?? 0) + 1;
  if (depth > MAX_NESTING)
    return {
      ok: false,
      code: "nesting_too_deep",
      message: `sub-sessions nest at most ${MAX_NESTING} deep; this session is at depth ${depth - 1}`,
    };
  if (!s.directoryId) return { ok: false, code: "unavailable", message: "this session has no owner directory" };
  // An MCP tool the child is given must be one this session has now (or one of a server down now).
  const unknownMcp = args.tools?.find((n) => n.includes("__") && !rt.toolFor(n) && !rt.unavailableServerOf(n));
  if (unknownMcp !== undefined)
    return { ok: false, code: "unknown_tool", message: `tools: this session has no tool ${unknownMcp}` };
  const o = s.options as SessionOptions & Record<string, unknown>;
  const tools = args.tools ?? o.tools;
  const approvals = (o.approvals ?? []).filter((r) => !tools || tools.includes(r.tool));
  const inherited: Record<string, unknown> = {};
  for (const key of ["maxModelCallsPerTurn", "jurisdiction", "offloadThresholdBytes", "memory", "skills"])
    if (o[key] !== undefined) inherited[key] = o[key];
  return {
    ok: true,
    spawn: {
      parentId: s.id,
      callId: call.callId,
      depth,
      goal: args.goal,
      options: {
        ...inherited,
        ...(tools ? { tools } : {}),
        ...(approvals.length ? { approvals } : {}),
      } as SessionOptions,
      model: s.openTurn?.model ?? s.model,
      directoryId: s.directoryId,
    },
  };
}

/** Creates or re-attaches to the call's child. `awaitChild`: the response comes with its report. */
export async function spawnChild(
  rt: RuntimeCtx,
  call: { callId: string },
  args: { goal: string; tools?: string[] },
): Promise<ToolResult> {
  const port = rt.deps.children;
  if (!port) return { status: "error", response: { code: "unavailable", message: "sub-sessions are not available" } };
  const built = buildChildSpawn(rt, call, args);
  if (!built.ok) return { status: "error", response: { code: built.code, message: built.message } };
  // A refused create is an answer the model reads. A create that threw may have reached the
  // child or not: the call stays dispatched and the wait sends the idempotent create again.
  const r = await port.spawn(built.spawn).catch((err: unknown) => {
    console.error("highwater: creating a sub-session failed; the wait retries it", err);
    return null;
  });
  if (r && !r.ok) return { status: "error", response: { code: r.error.code, message: r.error.message } };
  if (r) rt.attachedChildren.add(call.callId);
  return { status: "ok", response: { sessionId: r?.value.sessionId ?? null }, awaitChild: true };
}

/**
 * The wait of docs/API.md §7.31: re-sends the idempotent create for each waiting spawn this
 * incarnation has not attached yet (after a restart), so a crash between T1 and the create
 * still yields its one child. True when every child is attached.
 */
export async function reattachChildren(rt: RuntimeCtx, calls: CallState[]): Promise<boolean> {
  for (const call of calls) {
    if (rt.attachedChildren.has(call.callId)) continue;
    const tool = getTool(SPAWN_TOOL)!;
    const parsed = parseToolArgs(tool, call.args);
    if (!parsed.ok) continue;
    const r = await spawnChild(rt, call, parsed.args as { goal: string; tools?: string[] });
    // A create refused now (the child cannot be made) is the call's answer, as at its dispatch.
    const turn = rt.summary?.openTurn;
    if (!r.awaitChild && turn && stillAwaits(rt, call.callId))
      rt.commit([
        responseDraft(
          call,
          { turnId: turn.turnId, runId: turn.runId, invocationId: call.invocationId },
          r.status,
          r.response,
        ),
      ]);
  }
  return calls.every((c) => rt.attachedChildren.has(c.callId) || !stillAwaits(rt, c.callId));
}

function stillAwaits(rt: RuntimeCtx, callId: string): boolean {
  return rt.summary?.children?.awaiting.some((w) => w.callId === callId) ?? false;
}

/**
 * A child's report on its parent: the call's response, appended once per callId (a repeated
 * report finds it and is only acknowledged). Returns whether it appended.
 */
export function receiveChildReport(rt: RuntimeCtx, report: ChildReport): boolean {
  const s = rt.require();
  if (!rt.deps.children || rt.deps.children.childIdFor(report.callId) !== report.childId)
    throw new ApiError("not_found", "unknown child");
  if (rt.deps.store.readCallOutcomes(report.callId).some((e) => e.content?.type === "functionResponse")) return false;
  // A call without a response is in the open turn after its last model request (every close answers
  // every open call): its dispatch is in the turn's suffix, with the call's turn and invocation.
  const turn = s.openTurn;
  const dispatch = turn
    ? rt.turnSuffix().find((e) => e.actions?.toolDispatch?.callId === report.callId && e.turnId === turn.turnId)
    : undefined;
  if (!turn || !dispatch) throw new ApiError("not_found", "unknown call");
  const ids = { turnId: turn.turnId, runId: turn.runId, invocationId: dispatch.invocationId };
  rt.commit([
    responseDraft({ callId: report.callId, name: SPAWN_TOOL }, ids, "ok", {
      sessionId: report.childId,
      status: report.status,
      result: report.result,
    }),
  ]);
  return true;
}

/** The child side of a spawn: the session and its goal, each written once (keyed by the callId). */
export function childCreatedDraft(id: string, spawn: ChildSpawn & { owner: string }): EventDraft {
  const spawnedBy: SpawnedBy = { sessionId: spawn.parentId, callId: spawn.callId, depth: spawn.depth };
  return {
    author: "runtime",
    modelVisibility: "hidden",
    actions: {
      stateDelta: {
        session: {
          id,
          parentId: spawn.parentId,
          options: spawn.options,
          model: spawn.model,
          spawnedBy,
          directoryId: spawn.directoryId,
          owner: spawn.owner,
        },
      },
    },
  };
}

/** Checks that an existing child is the one this spawn names (the id is derived, so it always is). */
export function sameSpawn(existing: unknown, spawn: ChildSpawn): boolean {
  const by = parseSpawnedBy(existing);
  return by !== null && by.sessionId === spawn.parentId && by.callId === spawn.callId;
}

const hidden = (base: Partial<Base>, stateDelta: Record<string, unknown>): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  ...base,
  actions: { stateDelta },
});

/**
 * The outbox (docs/API.md §6, §7.31): a child's report to its parent, and a parent's stops of its
 * children, each delivered until acknowledged, then recorded (`reportAcked`, `childStopAcked`).
 * The caller arms the retry before anything is sent, so a kill mid-delivery comes back.
 * Returns true when nothing is left to deliver.
 */
export async function deliverChildrenWork(rt: RuntimeCtx): Promise<boolean> {
  const port = rt.deps.children;
  const c = rt.summary?.children;
  if (!port || !c) return true;
  let done = true;
  if (c.report && c.spawnedBy) {
    const by = c.spawnedBy;
    const result = reportResult(rt, c);
    const sent = await port
      .report(by.sessionId, { callId: by.callId, childId: rt.deps.sessionId, status: c.report.status, result })
      .catch(() => null);
    if (sent?.ok) {
      rt.commit([hidden({}, { reportAcked: { parentId: by.sessionId, callId: by.callId } })]);
    } else done = false;
  }
  const stops = rt.summary?.children?.stops ?? [];
  const acked: string[] = [];
  for (const callId of stops) {
    const r = await port.stop(callId).catch(() => null);
    // Only the child's own answer acknowledges; a `not_found` is retried, never taken as done.
    if (r?.ok) acked.push(callId);
  }
  if (acked.length > 0) rt.commit([hidden({}, { childStopAcked: { callIds: acked } })]);
  if (acked.length < stops.length) done = false;
  return done;
}

/**
 * The report's result, read from the one event the summary points at (docs/design.md#principles:
 * bounded); a summary folded before that pointer existed reads the goal turn once more.
 */
function reportResult(rt: RuntimeCtx, c: ChildrenState): string | null {
  if (c.resultSeq === null) return null;
  if (c.resultSeq !== undefined) {
    const e = rt.deps.store.get(c.resultSeq);
    return e ? childResult([e]) : null;
  }
  const turnId = c.report?.turnId;
  return childResult(rt.deps.store.readFrom(c.goalTurnSeq ?? 1).filter((e) => e.turnId === turnId));
}

/** Whether the open turn still waits for a child (a report may have arrived during an await). */
export function stillWaitsForChild(rt: RuntimeCtx): boolean {
  return childWait(rt.summary?.children) !== null;
}
