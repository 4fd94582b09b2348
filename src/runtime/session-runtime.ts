/**
 * The runtime as the session object uses it: the summary cache, commits, commands and the
 * alarm, wired to the pure core (`plan.ts`, `drafts.ts`) and its driver (`loop.ts`).
 */
import { buildNextContext, type ContextInput, type NextContext } from "../context";
import { FEATURES } from "../features";
import {
  type ChildReport,
  type ChildSpawn,
  childCreatedDraft,
  deliverChildrenWork,
  receiveChildReport,
  sameSpawn,
} from "../features/children/commands";
import { type ForkPrefix, renderPrefix } from "../features/fork/facts";
import { canonical, type Event, type EventDraft } from "../log";
import type { ModelConfig, ToolSpec } from "../model/types";
import {
  type CallState,
  hasChildrenWork,
  reduceSummary,
  type Session,
  type SessionCreated,
  type SessionOptions,
  type SessionSummary,
  toSession,
} from "../projections";
import { callNeedsApproval, parseToolArgs } from "../tools";
import type { ToolDefinition } from "../tools/types";
import { type AlarmDues, nextAlarm } from "./alarm";
import { AlarmOwner } from "./alarm-owner";
import {
  appendMessage,
  createSession,
  decideApproval,
  dismissRecoveryNotice,
  failTurn,
  patchSession,
  stopTurn,
} from "./commands";
import type { DeltaFrame, RuntimeCtx, RuntimeDeps } from "./deps";
import { ApiError } from "./errors";
import { type FailpointId, failpoint, haltedAtFailpoint, hang } from "./failpoints";
import { applyIdempotencyEvents } from "./idempotency";
import { afterFailedSlice, runSlice } from "./loop";
import { DEFAULT_POLICY, type RuntimePolicy } from "./retry";
import { loadSummary, writeSummary } from "./state";
import { TurnSuffix } from "./turn-suffix";
import { TurnTools } from "./turn-tools";
import { resumeWait } from "./waits";

export { REQUEST_ID } from "./commands";
export type { RuntimeConfig, RuntimeDeps } from "./deps";

/** How long a lease alarm waits before a dead loop is picked up again. */
export const LEASE_MS = DEFAULT_POLICY.leaseMs;

export const BASE_SYSTEM_PROMPT = `You are an agent running inside highwater, a durable runtime. You work on the user's task step by step using the tools provided. Your workspace is a set of text files private to this session. Tool results are facts; a result with status "interrupted" means its side effect may or may not have happened, so inspect before retrying. Large results may arrive as placeholders with an archive:// ref that read_archive can page back in. When the task is done, answer without calling tools.`;

/**
 * The agent loop and every command that changes a session, driven from the log. Each decision
 * re-reads the log (through the summary and the open turn's suffix), so a repeated alarm or a
 * slice after a crash finds nothing new to do twice.
 */
export class SessionRuntime implements RuntimeCtx {
  readonly policy: RuntimePolicy;
  #summary: SessionSummary | null;
  /** False from the object's start until its first slice has decided: `recovering` (CONTRACT §7.12). */
  #decided: boolean;
  #verified = false;
  #loop: Promise<void> | null = null;
  /** The text streamed so far in the current attempt, by kind (memory only: lost on eviction). */
  #streamed: DeltaFrame[] = [];
  #abort = new AbortController();
  readonly attachedChildren = new Set<string>();
  readonly #alarm = new AlarmOwner();
  readonly #suffix = new TurnSuffix();
  readonly incarnation = crypto.randomUUID();
  readonly #tools: TurnTools;

  constructor(readonly deps: RuntimeDeps) {
    this.policy = { ...DEFAULT_POLICY, ...deps.policy };
    this.#tools = new TurnTools(deps.store.blobs, deps.mcp);
    this.#summary = loadSummary(deps.sql, deps.store);
    // A turn that only waits needs no slice to decide: taking it over is a handover (CONTRACT §7.12).
    this.#decided = !this.#summary?.openTurn || !!this.#summary.openTurn.wait;
  }

  // ---- reading ---------------------------------------------------------------------------

  get summary(): SessionSummary | null {
    return this.#summary;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  exists(): boolean {
    return this.#summary !== null;
  }

  session(): Session {
    return toSession(this.require(), () => this.#decided);
  }

  require(): SessionSummary {
    if (!this.#summary) throw new ApiError("not_found", "session not found");
    return this.#summary;
  }

  /** The open turn's events from its last model request (or its start), read from a kept position. */
  turnSuffix(): Event[] {
    return this.#suffix.read(this.deps.store, this.#summary?.openTurn);
  }

  needsApproval(call: CallState): boolean {
    const rules = this.#summary?.options.approvals ?? [];
    if (rules.length === 0) return false;
    const tool = this.toolFor(call.name);
    if (!tool) return false;
    const parsed = parseToolArgs(tool, call.args);
    return parsed.ok && callNeedsApproval(rules, call.name, parsed.args);
  }

  toolFor(name: string): ToolDefinition<unknown> | null {
    const s = this.#summary;
    return s ? this.#tools.lookup(s, name) : null;
  }

  unavailableServerOf(name: string): string | null {
    const s = this.#summary;
    return s ? this.#tools.unavailableServerOf(s, name) : null;
  }

  /** Before a turn's first model call: lists the MCP servers and records the toolset if it changed. */
  async refreshToolset(ids: { turnId: string; runId: string }): Promise<void> {
    const drafts = await this.#tools.refresh(this.require(), ids);
    if (drafts.length > 0 && this.#summary?.openTurn?.turnId === ids.turnId) this.commit(drafts);
  }

  now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  failpoint(id: FailpointId): Promise<void> {
    return failpoint(this.deps.config, id);
  }

  delta(frame: DeltaFrame): void {
    const held = this.#streamed.find((f) => f.kind === frame.kind);
    if (held && held.invocationId === frame.invocationId && held.attempt === frame.attempt) held.text += frame.text;
    else {
      this.#streamed = this.#streamed.filter(
        (f) => f.kind !== frame.kind && f.invocationId === frame.invocationId && f.attempt === frame.attempt,
      );
      this.#streamed.push({ ...frame });
    }
    this.deps.onDelta(frame);
  }

  endAttempt(): void {
    this.#streamed = [];
  }

  /**
   * CONTRACT §7.18: the in-flight replay for a socket that caught up while a call streams, one
   * frame per kind with the text so far of the current attempt, thinking before text.
   */
  inflightReplay(): (DeltaFrame & { replace: true })[] {
    return ["thinking", "text"].flatMap((kind) =>
      this.#streamed.filter((f) => f.kind === kind).map((f) => ({ ...f, replace: true as const })),
    );
  }

  /** Context for the next model call: what `GET /context` shows. Never compacts, never calls a model. */
  buildContext(model?: ModelConfig): NextContext {
    const s = this.require();
    return buildNextContext(this.deps, this.contextInput(model ?? s.openTurn?.model ?? s.model));
  }

  contextInput(model: ModelConfig): ContextInput {
    const s = this.require();
    const system = s.options.system ? `${BASE_SYSTEM_PROMPT}\n\n${s.options.system}` : BASE_SYSTEM_PROMPT;
    const tools: ToolSpec[] = this.#tools.specs(s);
    const prefix = this.#forkPrefix(s);
    return { summary: s, model, system, tools, ...(prefix ? { prefix } : {}) };
  }

  #prefix: { sha256: string; value: NonNullable<ContextInput["prefix"]> } | null = null;

  /** A fork's prefix, read from its seq 2 blob once per incarnation (CONTRACT §7.30). */
  #forkPrefix(s: SessionSummary): ContextInput["prefix"] {
    const ref = s.forkPrefix;
    if (!ref) return undefined;
    if (this.#prefix?.sha256 !== ref.sha256) {
      const text = this.deps.store.blobs.readText(ref.sha256);
      if (text === null) throw new Error(`fork prefix blob ${ref.sha256} is missing`);
      const messages = (JSON.parse(text) as ForkPrefix).messages;
      this.#prefix = { sha256: ref.sha256, value: { messages, text: renderPrefix(messages) } };
    }
    return this.#prefix.value;
  }

  // ---- committing ------------------------------------------------------------------------

  /**
   * Appends events, folds them into the summary and writes the cache, all in one synchronous
   * transaction; then tells the sockets. `also` joins the transaction.
   */
  commit(drafts: EventDraft[], also?: (events: Event[]) => void): Event[] {
    if (haltedAtFailpoint()) throw new Error("halted at a failpoint");
    if (drafts.length === 0) return [];
    const previous = this.#summary;
    let next = this.#summary;
    const events = this.deps.store.append(drafts, (evs) => {
      for (const e of evs) next = reduceSummary(next, e);
      if (next) writeSummary(this.deps.sql, next, this.#summary);
      for (const feature of FEATURES) feature.apply?.(this.deps.sql, evs);
      applyIdempotencyEvents(this.deps.sql, evs);
      also?.(evs);
    });
    this.#summary = next;
    if (previous && next && sameOutside(previous, next)) {
      this.deps.onCommit(events, null);
      return events;
    }
    const before = previous ? toSession(previous, () => this.#decided) : null;
    const after = this.#summary ? this.session() : null;
    const changed =
      !before ||
      !after ||
      before.status !== after.status ||
      before.openTurn !== after.openTurn ||
      canonical(before.pendingApprovals) !== canonical(after.pendingApprovals) ||
      canonical(before.recoveryNotice) !== canonical(after.recoveryNotice) ||
      canonical(before.wait) !== canonical(after.wait);
    this.deps.onCommit(events, changed ? after : null);
    return events;
  }

  // ---- commands --------------------------------------------------------------------------

  create(input: SessionCreated): Session {
    return createSession(this, input);
  }

  patch(input: { title?: string | null; model?: ModelConfig; maxModelCallsPerTurn?: number }): Session {
    return patchSession(this, input);
  }

  async postMessage(input: { text: string; idempotencyKey?: string; source: string }) {
    const { answer, opened, repeated } = appendMessage(this, input);
    if (repeated) return answer;
    if (opened) this.#decided = true;
    // Arm the alarm before anything else can happen: the event and the alarm commit together.
    await this.#kick();
    await this.failpoint("F0");
    return answer;
  }

  async decide(input: {
    requestId: string;
    decision: "approve" | "reject";
    reason?: string;
    argsDigest?: string;
  }): Promise<Session> {
    decideApproval(this, input);
    await this.#kick();
    return this.session();
  }

  /** Releases the open turn's current wait (CONTRACT §6); 409 for any other waitId. */
  async resume(input: { turnOfRun: string | null; waitId: string; text: string }): Promise<{ seq: number }> {
    const answer = resumeWait(this, input);
    this.#decided = true;
    await this.#kick();
    return answer;
  }

  dismissRecoveryNotice(input: { atSeq: number }): Session {
    return dismissRecoveryNotice(this, input);
  }

  /** Stop: the block of CONTRACT §3, then the model stream and running tools are aborted. */
  stop(): Session {
    if (stopTurn(this)) {
      this.#abort.abort(new Error("stopped"));
      this.#abort = new AbortController();
      // A child's report or the stops of its children go out from the alarm.
      void this.arm();
    }
    return this.session();
  }

  // ---- sub-sessions (CONTRACT §6 spawn_session, §7.31) ----------------------------------

  /**
   * The child side of a spawn: writes the session and its goal once (keyed by the callId); a
   * repeated create re-attaches and sends nothing twice.
   */
  async createChild(spawn: ChildSpawn & { owner: string }): Promise<Session> {
    const created = this.deps.store.readAfter(0, 1)[0]?.actions?.stateDelta?.session as
      | { spawnedBy?: unknown }
      | undefined;
    if (this.#summary && !sameSpawn(created?.spawnedBy, spawn))
      throw new ApiError("conflict", "this session is not that spawn's child");
    if (!this.#summary) this.commit([childCreatedDraft(this.deps.sessionId, spawn)]);
    const { repeated } = appendMessage(this, {
      text: spawn.goal,
      idempotencyKey: `spawn:${spawn.callId}`,
      source: "parent",
    });
    if (!repeated) {
      this.#decided = true;
      await this.#kick();
    }
    return this.session();
  }

  /** A child's report: the call's response once per callId, then the parent goes on. */
  async childReport(report: ChildReport): Promise<{ acked: true }> {
    if (receiveChildReport(this, report)) await this.#kick();
    await this.failpoint("F14");
    return { acked: true };
  }

  // ---- the one alarm (docs/design.md#where-things-live) ---------------------------------

  /** The due time of everything this object owes a wake-up for. */
  dues(): AlarmDues {
    return {
      ...this.#alarm.dues(this.#summary, this.deps.sql, this.now()),
      traceExport: this.deps.traceExportDue?.() ?? null,
    };
  }

  /**
   * The only writer of the object's alarm: the earliest of `dues()`, or none. Every part that
   * changes what is owed calls it, so no writer can drop another part's wake-up.
   */
  arm(): Promise<void> {
    const at = nextAlarm(this.dues(), this.now());
    return at === null ? this.deps.deleteAlarm() : this.deps.setAlarm(at);
  }

  /** The running slice holds the loop until `at` (the dead-man switch). */
  lease(at: number): Promise<void> {
    this.#alarm.lease(at);
    return this.arm();
  }

  /** The slice ends: the next one is due at `wake`, or, parked, only once a command moves the turn. */
  endSlice(wake: number | "parked"): Promise<void> {
    this.#alarm.endSlice(this.#summary?.openTurn?.turnId ?? null, wake);
    return this.arm();
  }

  /** A command moved the turn: a parked loop is due again (a retry or backoff time is kept). */
  #kick(): Promise<void> {
    this.#alarm.kick();
    return this.arm();
  }

  /**
   * After a restart: the stored alarm is what the last incarnation owed (a retry, a backoff, a
   * lease, the outbox), so it is kept; an open, runnable turn without one is due now.
   */
  async ensureAlarm(getAlarm: () => Promise<number | null>): Promise<void> {
    this.#alarm.adopt(await getAlarm(), this.#summary);
    await this.arm();
  }

  get running(): boolean {
    return this.#loop !== null;
  }

  /**
   * The alarm handler: one slice of the loop when the loop is due, or only a re-arm if a loop is
   * alive; then the outbox. A slice that throws is a failed slice (CONTRACT §7.13): the next one
   * comes after the backoff and decides. An alarm that fired for another part (a trigger, the
   * outbox) does not start a slice early, so a retry or a backoff keeps its time.
   */
  async alarm(): Promise<void> {
    if (haltedAtFailpoint()) return hang();
    if (this.#loop) {
      // The platform never runs two alarm handlers at once, so this happens only when a test
      // drives the alarm by hand: re-arm, then wait for the live slice to end.
      await this.arm();
      await this.#loop;
      return;
    }
    const due = this.dues().loop ?? null;
    if (due !== null && due <= this.now()) {
      this.#alarm.startSlice();
      this.#loop = runSlice(this, { decided: () => this.#decide(), verifyOnce: () => this.#verifyOnce() })
        .catch(async (err) => {
          if (haltedAtFailpoint()) return hang();
          console.error("highwater: slice failed", err);
          await afterFailedSlice(this);
        })
        .finally(() => {
          this.#loop = null;
          this.#alarm.lease(null);
        });
      await this.#loop;
    }
    await this.#deliverChildrenWork();
    if (!haltedAtFailpoint()) await this.arm();
  }

  /** After the slice: the outbox, until every report and stop is acknowledged. */
  async #deliverChildrenWork(): Promise<void> {
    if (!hasChildrenWork(this.#summary?.children) || haltedAtFailpoint()) return;
    // Armed for the retry before anything is sent, so a kill mid-delivery comes back.
    this.#alarm.outboxAttempt(this.now());
    await this.arm();
    this.#alarm.outboxDone(await deliverChildrenWork(this));
  }

  #decide() {
    this.#decided = true;
  }

  /** On this incarnation's first decision: a log that fails verification is never continued. */
  #verifyOnce(): boolean {
    if (this.#verified) return true;
    const turn = this.#summary?.openTurn;
    if (!turn) return true;
    this.#verified = true;
    const problems = this.deps.store.verifySuffix(turn.startSeq);
    if (problems.length === 0) return true;
    failTurn(this, "log_corrupt", `the log failed verification: ${problems.slice(0, 3).join("; ")}`);
    this.#decided = true;
    return false;
  }
}

export type { SessionOptions };

/**
 * True when nothing the sockets are told about on a commit (status, open turn, approvals,
 * recovery notice, wait) can differ: every part they are derived from is the same object.
 */
function sameOutside(a: SessionSummary, b: SessionSummary): boolean {
  return (
    a.openTurn === b.openTurn &&
    a.pendingApprovals === b.pendingApprovals &&
    a.recoveryNotice === b.recoveryNotice &&
    a.lastClose === b.lastClose &&
    a.children === b.children
  );
}
