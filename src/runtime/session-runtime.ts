/**
 * The runtime as the session object uses it: the summary cache, commits, commands and the
 * alarm, wired to the pure core (`plan.ts`, `drafts.ts`) and its driver (`loop.ts`).
 */
import { buildNextContext, type ContextInput, type NextContext } from "../context";
import { StopSource } from "../contract/deadline";
import type { Event, EventDraft } from "../contract/event";
import type { ModelConfig, ToolSpec } from "../model/types";
import {
  type CallState,
  type InputAnswer,
  type RunState,
  type Session,
  type SessionCreated,
  type SessionSummary,
  toSession,
} from "../projections";
import type { ToolDefinition } from "../tools/types";
import type { AlarmDues } from "./alarm";
import { AlarmOwner } from "./alarm-owner";
import { ChainCheck } from "./chain-check";
import type { ChildReport, ChildSpawn } from "./children";
import type { DecideInput } from "./commands";
import * as commands from "./commands";
import { DeltaBuffer } from "./delta-buffer";
import type { DeltaFrame, RuntimeCtx, RuntimeDeps } from "./deps";
import { ApiError } from "./errors";
import { type FailpointId, failpoint, haltedAtFailpoint } from "./failpoints";
import type { RuntimeFeature, TurnBase } from "./feature";
import { beforeTurnDrafts, deliverFeatures, FeatureContext, featuresDeniedHosts } from "./feature-hooks";
import { answer as answerInputCommand } from "./inputs";
import { type MessageInput, postMessage } from "./message";
import { PrefixCache } from "./prefix-cache";
import { RemoteCancels, remoteNotice } from "./remote";
import { DEFAULT_POLICY, type RuntimePolicy } from "./retry";
import { SliceRunner } from "./slice-runner";
import { cacheWrites, foldSummary, loadSummary, sameOutside, sessionChanged } from "./summary-cache";
import { systemPrompt } from "./system-prompt";
import { TurnSuffix } from "./turn-suffix";
import { TurnTools } from "./turn-tools";
import { UnderWay } from "./under-way";
import { type ResumeInput, resume } from "./waits";

/** How long a lease alarm waits before a dead loop is picked up again. */
export const LEASE_MS = DEFAULT_POLICY.leaseMs;

/**
 * The agent loop and every command that changes a session, driven from the log. Each decision
 * re-reads the log (through the summary and the open turn's suffix), so a repeated alarm or a
 * slice after a crash finds nothing new to do twice.
 */
export class SessionRuntime implements RuntimeCtx {
  readonly policy: RuntimePolicy;
  #summary: SessionSummary | null;
  /** False from the object's start until its first slice has decided: `recovering` (docs/API.md §7.12). */
  #decided: boolean;
  readonly #slices = new SliceRunner();
  readonly #deltas = new DeltaBuffer();
  readonly #chain = new ChainCheck();
  stops = new StopSource();
  readonly attachedChildren = new Set<string>();
  readonly #alarm: AlarmOwner;
  readonly #suffix = new TurnSuffix();
  readonly incarnation = crypto.randomUUID();
  readonly underWay: UnderWay;
  readonly #tools: TurnTools;
  readonly features: readonly RuntimeFeature[];
  readonly #shown: FeatureContext;
  readonly #prefix: PrefixCache;
  readonly #cancels = new RemoteCancels();

  constructor(readonly deps: RuntimeDeps) {
    this.policy = { ...DEFAULT_POLICY, ...deps.policy };
    this.features = deps.features ?? [];
    this.#shown = new FeatureContext(this.features, deps.store.blobs);
    this.#tools = new TurnTools(deps.store.blobs, deps.mcp, (s) => this.#shown.shown(s).tools);
    this.#prefix = new PrefixCache(deps.store.blobs);
    this.#alarm = new AlarmOwner(this);
    this.underWay = new UnderWay(deps.sql, this.incarnation);
    this.#summary = loadSummary(deps.sql, deps.store, this.features);
    // A turn that only waits needs no slice to decide: taking it over is a handover (docs/API.md §7.12).
    this.#decided = !this.#summary?.openTurn || !!this.#summary.openTurn.wait;
  }

  get summary(): SessionSummary | null {
    return this.#summary;
  }
  get signal(): AbortSignal {
    return this.stops.signal;
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
  runState(): RunState {
    return this.#suffix.state(this.deps.store, this.#summary?.openTurn);
  }

  needsApproval(call: CallState): boolean {
    return this.#summary ? this.#tools.needsApproval(this.#summary, call) : false;
  }

  toolFor(name: string): ToolDefinition<unknown> | null {
    const s = this.#summary;
    return s ? this.#tools.lookup(s, name) : null;
  }

  deniedHosts(): string[] {
    return featuresDeniedHosts(this.features, this.deps.env ?? {});
  }

  unavailableServerOf(name: string): string | null {
    const s = this.#summary;
    return s ? this.#tools.unavailableServerOf(s, name) : null;
  }

  /** Before a turn's first model call: the MCP toolset and the features' `beforeTurn`, committed if changed. */
  async beforeTurn(base: TurnBase): Promise<void> {
    const s = this.require();
    const drafts = [...(await this.#tools.refresh(s, base)), ...(await beforeTurnDrafts(this, s, base))];
    if (drafts.length > 0 && this.#summary?.openTurn?.turnId === base.turnId) this.commit(drafts);
  }

  now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  failpoint(id: FailpointId): Promise<void> {
    return failpoint(this.deps.config, id);
  }

  delta(frame: DeltaFrame): void {
    this.#deltas.add(frame);
    this.deps.onDelta(frame);
  }

  endAttempt(): void {
    this.#deltas.clear();
  }

  /** The in-flight replay for a socket that caught up while a call streams (docs/API.md#live-updates-over-a-websocket). */
  inflightReplay(): (DeltaFrame & { replace: true })[] {
    return this.#deltas.replay();
  }

  /** Context for the next model call: what `GET /context` shows. Never compacts, never calls a model. */
  buildContext(model?: ModelConfig): NextContext {
    const s = this.require();
    return buildNextContext(this.deps, this.contextInput(model ?? s.openTurn?.model ?? s.model));
  }

  contextInput(model: ModelConfig): ContextInput {
    const s = this.require();
    const tools: ToolSpec[] = this.#tools.specs(s);
    const prefix = this.#prefix.prefixOf(s);
    // What the features show follows the base prompt and the session's own (docs/design.md#plugs).
    const system = [systemPrompt(s.options.system), ...this.#shown.shown(s).system].join("\n\n");
    return { summary: s, model, system, tools, ...(prefix ? { prefix } : {}) };
  }

  /**
   * Appends events, folds them into the summary and writes the cache, all in one synchronous
   * transaction; then tells the sockets. `also` joins the transaction.
   */
  commit(drafts: EventDraft[], also?: (events: Event[]) => void): Event[] {
    if (haltedAtFailpoint()) throw new Error("halted at a failpoint");
    if (drafts.length === 0) return [];
    const previous = this.#summary;
    let next = this.#summary;
    // The fold is pure and runs before anything is written; the caches' writes join the event's
    // only when there are any, so an ordinary commit is one INSERT.
    const events = this.deps.store.appendPrepared(drafts, (evs) => {
      next = foldSummary(previous, evs, this.features);
      return cacheWrites(this.deps.sql, this.features, { previous, next, events: evs, also });
    });
    this.#summary = next;
    if (previous && next && sameOutside(previous, next)) {
      this.deps.onCommit(events, null);
      return events;
    }
    const before = previous ? toSession(previous, () => this.#decided) : null;
    const after = this.#summary ? this.session() : null;
    this.deps.onCommit(events, sessionChanged(before, after) ? after : null);
    return events;
  }

  // ---- commands --------------------------------------------------------------------------

  readonly create = (input: SessionCreated): Session => commands.createSession(this, input);
  readonly patch = (input: { title?: string | null; model?: ModelConfig; maxModelCallsPerTurn?: number }): Session =>
    commands.patchSession(this, input);
  readonly postMessage = (input: MessageInput) => postMessage(this, input);
  readonly decide = (input: DecideInput): Promise<Session> => commands.decide(this, input);
  readonly resume = (input: ResumeInput): Promise<{ seq: number }> => resume(this, input);
  /** A person's answer to a question of a tool's server (docs/API.md#questions-from-mcp-servers). */
  readonly answerInput = (requestId: string, input: InputAnswer): Promise<Session> =>
    answerInputCommand(this, requestId, input);
  readonly dismissRecoveryNotice = (input: { atSeq: number }): Session => commands.dismissRecoveryNotice(this, input);

  /**
   * Stop: the turn's closing block, then the model stream and running tools are aborted and the
   * remote tasks the turn waited for are cancelled (best effort, docs/design.md#remote-calls).
   */
  stop(): Session {
    const remote = this.#summary?.remote?.waiting ?? [];
    if (commands.stopTurn(this)) {
      this.#cancels.start(this, remote);
      this.stops.abort(new Error("stopped"));
      this.stops = new StopSource();
      // A child's report or the stops of its children go out from the alarm.
      void this.arm();
    }
    return this.session();
  }

  /** The cancels a stop started (best effort): awaited by the stop's caller. */
  settled(): Promise<void> {
    return this.#cancels.settled();
  }

  /** A push notification about a remote task (docs/design.md#remote-calls); 404 unless its token names a wait. */
  remoteNotice(input: Parameters<typeof remoteNotice>[1]): Promise<{ recorded: boolean }> {
    return remoteNotice(this, input);
  }

  readonly createChild = (spawn: ChildSpawn & { owner: string }): Promise<Session> => commands.createChild(this, spawn);
  readonly childReport = (report: ChildReport): Promise<{ acked: true }> => commands.childReport(this, report);

  // ---- the one alarm: its owner (`alarm-owner.ts`) gathers the dues and alone sets it ------

  readonly dues = (): AlarmDues => this.#alarm.dues();
  readonly arm = (): Promise<void> => this.#alarm.arm();
  readonly fired = (): void => this.#alarm.fired();
  readonly lease = (at: number): Promise<void> => this.#alarm.lease(at);
  readonly endSlice = (wake: number | "parked"): Promise<void> => this.#alarm.endSlice(wake);
  readonly kick = (): Promise<void> => this.#alarm.kick();
  readonly ensureAlarm = (getAlarm: () => Promise<number | null>): Promise<void> => this.#alarm.adopt(getAlarm);

  get running(): boolean {
    return this.#slices.running;
  }

  /**
   * The object's alarm: the features' `beforeSlice` (a trigger fires, a queued run starts), the
   * loop's slice, `afterTurn`, then the features' `deliver` (their outboxes) (docs/design.md#plugs).
   */
  async wake(): Promise<void> {
    const host = { runtime: this, sql: this.deps.sql };
    for (const f of this.features) f.beforeSlice?.(host);
    await this.alarm();
    await this.afterTurn();
    await this.deliver();
  }

  /** The features' outboxes (`deliver`), then the alarm for whatever they still owe. */
  async deliver(): Promise<void> {
    if (!haltedAtFailpoint() && (await deliverFeatures(this))) await this.arm();
  }

  /** After a slice or a stop: the features' `afterTurn` (a run queued behind the turn starts), then the alarm. */
  async afterTurn(): Promise<void> {
    for (const f of this.features) f.afterTurn?.({ runtime: this, sql: this.deps.sql });
    await this.arm();
  }

  /** A slice when the loop is due, then the outbox (`slice-runner.ts`). */
  alarm(): Promise<void> {
    return this.#slices.alarm(this, this.#alarm, {
      decided: () => this.markDecided(),
      verifyOnce: () => this.#verifyOnce(),
    });
  }

  markDecided(): void {
    this.#decided = true;
  }

  /** On this incarnation's first decision: a log that fails verification is never continued. */
  #verifyOnce(): boolean {
    const failed = this.#chain.firstDecision(this.deps.store, this.#summary?.openTurn);
    if (!failed) return true;
    commands.failTurn(this, "log_corrupt", failed);
    this.#decided = true;
    return false;
  }
}
