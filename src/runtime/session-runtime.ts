import {
  buildNextContext,
  type ContextInput,
  ContextOverflowError,
  type NextContext,
  prepareContext,
} from "../context";
import { canonical, type Event, type EventDraft, type EventStore, type ResponseStatus, sha256Hex } from "../log";
import type { ModelConfig, ModelPart, ModelProvider, NeutralMessage, ToolSpec } from "../model/types";
import { ProviderError } from "../model/types";
import {
  buildRecoveryPlan,
  type CallState,
  decideNextStep,
  INTERRUPTED_DIRECTIVE,
  type PendingApproval,
  projectRunState,
  reduceSummary,
  type Session,
  type SessionCreated,
  type SessionOptions,
  type SessionSummary,
  toSession,
} from "../projections";
import type { SqlLike } from "../storage";
import {
  applyFileChanges,
  callNeedsApproval,
  enabledTools,
  getTool,
  makePlaceholder,
  parseToolArgs,
  serializeToolResponse,
  toolSpecs,
} from "../tools";
import type { ToolDefinition, ToolResult } from "../tools/types";
import { ApiError } from "./errors";
import { type FailpointEnv, type FailpointId, failpoint, haltedAtFailpoint, hang } from "./failpoints";

/** How long a lease alarm waits before a dead loop is picked up again. */
export const LEASE_MS = 3_000;
/** A slice yields (alarm now) after this many steps or this long, so no request runs forever. */
const SLICE_STEPS = 40;
const SLICE_MS = 10 * 60_000;
const MAX_MODEL_CALLS_PER_TURN = 200;
const TOOL_TIMEOUT_MS = 60_000;
const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000];
const MAX_RETRY_AFTER_MS = 60_000;

export const BASE_SYSTEM_PROMPT = `You are an agent running inside highwater, a durable runtime. You work on the user's task step by step using the tools provided. Your workspace is a set of text files private to this session. Tool results are facts; a result with status "interrupted" means its side effect may or may not have happened, so inspect before retrying. Large results may arrive as placeholders with an archive:// ref that read_archive can page back in. When the task is done, answer without calling tools.`;

export type RuntimeConfig = FailpointEnv & {
  httpAllowedHosts: string[];
  offloadThresholdBytes: number;
};

export type RuntimeDeps = {
  sessionId: string;
  store: EventStore;
  sql: SqlLike;
  transactionSync: <T>(fn: () => T) => T;
  setAlarm: (at: number) => Promise<void>;
  deleteAlarm: () => Promise<void>;
  providerFor: (model: ModelConfig) => ModelProvider;
  fetch: typeof fetch;
  config: RuntimeConfig;
  /** Called after every commit with the committed events and, when it changed, the new Session. */
  onCommit: (events: Event[], session: Session | null) => void;
  onDelta: (frame: { invocationId: string; kind: "text" | "thinking"; text: string }) => void;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

const newId = () => crypto.randomUUID();

/** Approval request ids: derived from the turn and call, `apr_` + 24 hex. */
export const REQUEST_ID = /^apr_[0-9a-f]{24}$/;

type EventIds = { turnId: string; runId: string; invocationId?: string };

/** The `tool` event answering a call (T2, or the answer recovery, stop or a rejection gives it). */
function responseDraft(
  call: { callId: string; name: string },
  ids: EventIds,
  status: ResponseStatus,
  response: unknown,
  actions?: EventDraft["actions"],
): EventDraft {
  return {
    author: "tool",
    modelVisibility: "visible",
    ...ids,
    content: { type: "functionResponse", callId: call.callId, name: call.name, status, response },
    ...(actions ? { actions } : {}),
  };
}

/** A model answer gathered from the stream, committed as a whole once it is complete. */
type ModelAnswer = {
  text: string;
  thinking: string;
  signature?: string;
  calls: Extract<ModelPart, { type: "tool-call" }>[];
  usage: Extract<ModelPart, { type: "usage" }> | null;
};

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * The agent loop and every command that changes a session, driven from the log.
 * Each decision re-reads the log (through the summary and the open turn's suffix), so a
 * repeated alarm or a slice after a crash finds nothing new to do twice.
 */
export class SessionRuntime {
  #summary: SessionSummary | null;
  /** Runs started by this incarnation; an open turn whose run is not here is recovered. */
  readonly #ownedRuns = new Set<string>();
  #loop: Promise<void> | null = null;
  #abort = new AbortController();

  constructor(private readonly deps: RuntimeDeps) {
    this.#summary = this.#loadSummary();
  }

  // ---- reading ---------------------------------------------------------------------------

  get summary(): SessionSummary | null {
    return this.#summary;
  }

  exists(): boolean {
    return this.#summary !== null;
  }

  session(): Session {
    return toSession(this.#require(), (runId) => this.#ownedRuns.has(runId));
  }

  #require(): SessionSummary {
    if (!this.#summary) throw new ApiError("not_found", "session not found");
    return this.#summary;
  }

  #loadSummary(): SessionSummary | null {
    const rows = new Map(
      this.deps.sql
        .exec<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key IN ('summary', 'options')")
        .toArray()
        .map((r) => [r.key, r.value]),
    );
    const summary = rows.get("summary");
    const options = rows.get("options");
    const cached =
      summary && options ? ({ ...JSON.parse(summary), options: JSON.parse(options) } as SessionSummary) : null;
    const head = this.deps.store.head();
    if (cached && cached.highWater === head.highWater && cached.headDigest === head.headDigest) return cached;
    // The cache is behind or missing: rebuild it from the log (it is only ever a cache).
    let s: SessionSummary | null = null;
    let after = 0;
    for (;;) {
      const page = this.deps.store.readAfter(after, 1000);
      if (page.length === 0) break;
      for (const e of page) s = reduceSummary(s, e);
      after = page[page.length - 1]!.seq;
    }
    if (s) this.#writeSummary(s, null);
    return s;
  }

  /**
   * Writes the summary cache. The options (up to 64 KiB of system prompt) are fixed at
   * creation, so they are written apart and only when they change, not on every commit.
   */
  #writeSummary(s: SessionSummary, previous: SessionSummary | null) {
    const { options, ...rest } = s;
    this.deps.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('summary', ?)", JSON.stringify(rest));
    if (options !== previous?.options)
      this.deps.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('options', ?)", JSON.stringify(options));
  }

  /** Events of the open turn from its last model request (or its start): what a step projects. */
  #turnSuffix(): Event[] {
    const t = this.#summary?.openTurn;
    if (!t) return [];
    return this.deps.store.readFrom(t.lastModelRequestSeq ?? t.startSeq);
  }

  #needsApproval = (call: CallState): boolean => {
    const rules = this.#summary?.options.approvals ?? [];
    if (rules.length === 0) return false;
    const tool = this.#toolFor(call.name);
    if (!tool) return false;
    const parsed = parseToolArgs(tool, call.args);
    return parsed.ok && callNeedsApproval(rules, call.name, parsed.args);
  };

  #toolFor(name: string): ToolDefinition<unknown> | null {
    const enabled = this.#summary?.options.tools;
    if (enabled && !enabled.includes(name)) return null;
    return (getTool(name) as ToolDefinition<unknown> | undefined) ?? null;
  }

  // ---- committing ------------------------------------------------------------------------

  /**
   * Appends events, folds them into the summary and writes the cache, all in one
   * synchronous transaction; then tells the sockets. `also` joins the transaction.
   */
  commit(drafts: EventDraft[], also?: (events: Event[]) => void): Event[] {
    if (haltedAtFailpoint()) throw new Error("halted at a failpoint");
    const before = this.#summary ? this.session() : null;
    let next = this.#summary;
    const events = this.deps.store.append(drafts, (evs) => {
      for (const e of evs) next = reduceSummary(next, e);
      if (next) this.#writeSummary(next, this.#summary);
      also?.(evs);
    });
    this.#summary = next;
    const after = this.#summary ? this.session() : null;
    const changed =
      !before ||
      !after ||
      before.status !== after.status ||
      before.openTurn !== after.openTurn ||
      canonical(before.pendingApprovals) !== canonical(after.pendingApprovals) ||
      canonical(before.recoveryNotice) !== canonical(after.recoveryNotice);
    this.deps.onCommit(events, changed ? after : null);
    return events;
  }

  // ---- commands --------------------------------------------------------------------------

  create(input: SessionCreated): Session {
    if (this.#summary) throw new ApiError("conflict", "session already exists");
    this.commit([
      {
        author: "runtime",
        modelVisibility: "hidden",
        actions: { stateDelta: { session: input } },
      },
    ]);
    return this.session();
  }

  patch(input: { title?: string | null; model?: ModelConfig }): Session {
    const s = this.#require();
    const delta: Record<string, unknown> = {};
    if (input.title !== undefined) delta.title = input.title;
    if (input.model !== undefined) delta.model = input.model;
    if (Object.keys(delta).length === 0) return this.session();
    this.commit([
      { author: "user", modelVisibility: "hidden", turnId: s.openTurn?.turnId, actions: { stateDelta: delta } },
    ]);
    return this.session();
  }

  /** A user message: opens a turn or joins the open one (CONTRACT §3 Turns). */
  async postMessage(input: { text: string; idempotencyKey?: string; source: string }) {
    this.#require();
    if (input.idempotencyKey) {
      const prior = this.#idempotentAnswer(`message:${input.idempotencyKey}`);
      if (prior) return prior as { turnId: string; seq: number };
    }
    const open = this.#summary!.openTurn;
    const turnId = open?.turnId ?? newId();
    const runId = open?.runId ?? newId();
    if (!open) this.#ownedRuns.add(runId);
    let answer = { turnId, seq: 0 };
    this.commit(
      [
        {
          author: "user",
          source: input.source,
          modelVisibility: "visible",
          turnId,
          runId,
          content: { type: "text", text: input.text },
        },
      ],
      ([e]) => {
        answer = { turnId, seq: e!.seq };
        if (input.idempotencyKey) this.#rememberAnswer(`message:${input.idempotencyKey}`, answer);
      },
    );
    // Arm the alarm before anything else can happen: the event and the alarm commit together.
    const kicked = this.#kick();
    await kicked;
    await failpoint(this.deps.config, "F0");
    return answer;
  }

  #idempotentAnswer(key: string): unknown {
    const row = this.deps.sql
      .exec<{ answer: string }>("SELECT answer FROM idempotency WHERE key = ?", key)
      .toArray()[0];
    return row ? JSON.parse(row.answer) : null;
  }

  #rememberAnswer(key: string, answer: unknown) {
    this.deps.sql.exec("INSERT INTO idempotency (key, answer) VALUES (?, ?)", key, JSON.stringify(answer));
  }

  /** Records an approval decision; a reject answers the call at once (no dispatch). */
  async decide(input: { requestId: string; decision: "approve" | "reject"; reason?: string }): Promise<Session> {
    const s = this.#require();
    if (!REQUEST_ID.test(input.requestId)) throw new ApiError("not_found", "unknown approval");
    const pending = s.pendingApprovals.find((p) => p.requestId === input.requestId);
    if (!pending) {
      if (this.#approvalKnown(input.requestId)) throw new ApiError("conflict", "approval already decided");
      throw new ApiError("not_found", "unknown approval");
    }
    const turn = s.openTurn!;
    const decision = {
      requestId: input.requestId,
      decision: input.decision,
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
    };
    const drafts: EventDraft[] = [
      {
        author: "user",
        modelVisibility: "hidden",
        turnId: turn.turnId,
        runId: turn.runId,
        actions: { permissionDecision: decision },
      },
    ];
    if (input.decision === "reject")
      drafts.push(this.#rejectedResponse(pending, turn, { reason: input.reason ?? "rejected by user" }));
    this.commit(drafts);
    await this.#kick();
    return this.session();
  }

  #approvalKnown(requestId: string): boolean {
    return (
      this.deps.sql
        // `decide` admits only `apr_<hex>` ids, so the pattern holds no wildcards.
        .exec(
          "SELECT 1 FROM events WHERE kind = 'permissionRequest' AND body LIKE ? LIMIT 1",
          `%"requestId":"${requestId}"%`,
        )
        .toArray().length > 0
    );
  }

  #rejectedResponse(
    p: Pick<PendingApproval, "callId" | "tool">,
    turn: { turnId: string; runId: string },
    response: unknown,
  ): EventDraft {
    return responseDraft(
      { callId: p.callId, name: p.tool },
      { turnId: turn.turnId, runId: turn.runId },
      "rejected",
      response,
    );
  }

  /**
   * Stop (CONTRACT §3): one synchronous block answers every open call and closes the turn;
   * then the model stream and running tools are aborted and their late outcomes dropped.
   */
  stop(): Session {
    const s = this.#require();
    const turn = s.openTurn;
    if (!turn) return this.session();
    const state = projectRunState(this.#turnSuffix());
    const base = { turnId: turn.turnId, runId: turn.runId };
    const drafts: EventDraft[] = [];
    for (const call of state.calls) {
      if (call.answered) continue;
      if (call.approval && call.approval.decision === null) {
        drafts.push({
          author: "runtime",
          modelVisibility: "hidden",
          ...base,
          actions: {
            permissionDecision: { requestId: call.approval.requestId, decision: "reject", reason: "stopped" },
          },
        });
        drafts.push(this.#rejectedResponse({ callId: call.callId, tool: call.name }, turn, { reason: "stopped" }));
      } else if (!call.dispatch) {
        drafts.push(this.#rejectedResponse({ callId: call.callId, tool: call.name }, turn, { reason: "stopped" }));
      } else {
        drafts.push(this.#interruptedResponse(call, base, "stopped"));
      }
    }
    drafts.push({
      author: "runtime",
      modelVisibility: "hidden",
      ...base,
      actions: { turnClose: { reason: "stopped" } },
    });
    this.commit(drafts);
    this.#abort.abort(new Error("stopped"));
    this.#abort = new AbortController();
    return this.session();
  }

  // ---- the loop --------------------------------------------------------------------------

  #kick(): Promise<void> {
    return this.#loop ? Promise.resolve() : this.deps.setAlarm(this.#now());
  }

  /**
   * After a restart an open, runnable turn must have an alarm (the dead-man switch); if it
   * was lost, arm it now. Called once when the object starts.
   */
  async ensureAlarm(getAlarm: () => Promise<number | null>): Promise<void> {
    const s = this.#summary;
    if (!s?.openTurn || s.pendingApprovals.length > 0) return;
    if ((await getAlarm()) === null) await this.deps.setAlarm(this.#now());
  }

  #now() {
    return this.deps.now?.() ?? Date.now();
  }

  /** The alarm handler: runs one slice of the loop, or only re-arms if a loop is alive. */
  async alarm(): Promise<void> {
    if (haltedAtFailpoint()) return hang();
    if (this.#loop) {
      await this.deps.setAlarm(this.#now() + LEASE_MS);
      return;
    }
    this.#loop = this.#runSlice().finally(() => {
      this.#loop = null;
    });
    await this.#loop;
  }

  get running(): boolean {
    return this.#loop !== null;
  }

  async #runSlice(): Promise<void> {
    const started = this.#now();
    for (let steps = 0; ; steps++) {
      const s = this.#summary;
      if (!s?.openTurn) {
        await this.deps.deleteAlarm();
        return;
      }
      if (s.pendingApprovals.length > 0) {
        await this.deps.deleteAlarm();
        return;
      }
      if (steps >= SLICE_STEPS || this.#now() - started > SLICE_MS) {
        await this.deps.setAlarm(this.#now());
        return;
      }
      await this.deps.setAlarm(this.#now() + LEASE_MS);
      if (!this.#ownedRuns.has(s.openTurn.runId)) {
        if (!this.#takeOver()) continue;
      }
      const cont = await this.#step();
      if (!cont) {
        if (!this.#summary?.openTurn || (this.#summary?.pendingApprovals.length ?? 0) > 0)
          await this.deps.deleteAlarm();
        return;
      }
    }
  }

  /**
   * Recovery (CONTRACT §3): a new incarnation continues an open turn under a new run.
   * Verifies the turn's part of the chain, answers dispatched writes as interrupted and
   * records a notice; dispatched reads are re-run by the normal step that follows.
   * Returns false when the turn was closed instead (a log that fails verification).
   */
  #takeOver(): boolean {
    const s = this.#summary!;
    const turn = s.openTurn!;
    const runId = newId();
    this.#ownedRuns.add(runId);
    const base = { turnId: turn.turnId, runId };
    const problems = this.deps.store.verifySuffix(turn.startSeq);
    if (problems.length > 0) {
      this.commit([
        {
          author: "runtime",
          modelVisibility: "hidden",
          ...base,
          content: {
            type: "error",
            code: "log_corrupt",
            message: `the log failed verification: ${problems.slice(0, 3).join("; ")}`,
          },
        },
        { author: "runtime", modelVisibility: "hidden", ...base, actions: { turnClose: { reason: "failed" } } },
      ]);
      return false;
    }
    const events = this.#turnSuffix();
    const plan = buildRecoveryPlan(events, this.#needsApproval);
    const state = projectRunState(events);
    const drafts: EventDraft[] = [
      {
        author: "runtime",
        modelVisibility: "hidden",
        ...base,
        actions: {
          stateDelta: {
            recoveryNotice: { atSeq: s.highWater + 1, rerun: plan.rerun, needsReview: plan.interrupted },
          },
        },
      },
    ];
    for (const callId of plan.interrupted) {
      const call = state.calls.find((c) => c.callId === callId)!;
      drafts.push(this.#interruptedResponse(call, base));
    }
    this.commit(drafts);
    return true;
  }

  /**
   * An `interrupted` outcome for a dispatched call: after a crash (with `toolRecovery` and the
   * directive to inspect before retrying) or because the user stopped the turn.
   */
  #interruptedResponse(
    call: CallState,
    base: { turnId: string; runId: string },
    why: "recovery" | "stopped" = "recovery",
  ): EventDraft {
    return why === "stopped"
      ? responseDraft(call, { ...base, invocationId: call.invocationId }, "interrupted", {
          reason: "stopped",
          message: "The user stopped the turn while this call was running.",
        })
      : responseDraft(
          call,
          { ...base, invocationId: call.invocationId },
          "interrupted",
          { interrupted: true, message: INTERRUPTED_DIRECTIVE },
          { toolRecovery: { callId: call.callId, strategy: "interrupted" } },
        );
  }

  /** One step of the loop. Returns false when the slice should end (waiting, closed). */
  async #step(): Promise<boolean> {
    const turn = this.#summary!.openTurn!;
    const base = { turnId: turn.turnId, runId: turn.runId };
    const state = projectRunState(this.#turnSuffix());
    const next = decideNextStep(state, this.#needsApproval);
    switch (next.kind) {
      case "none":
        return false;
      case "complete":
        this.commit([
          { author: "runtime", modelVisibility: "hidden", ...base, actions: { turnClose: { reason: "completed" } } },
        ]);
        await this.#failpoint("F11");
        return false;
      case "model":
        return this.#callModel(turn, state.lastModelRequest !== null && !state.modelAnswered);
      case "call": {
        const { plan } = next;
        const call = plan.call;
        switch (plan.kind) {
          case "wait_approval":
            return false;
          case "request_approval": {
            const tool = this.#toolFor(call.name)!;
            const parsed = parseToolArgs(tool, call.args);
            this.commit([
              {
                author: "runtime",
                modelVisibility: "hidden",
                ...base,
                invocationId: call.invocationId,
                actions: {
                  permissionRequest: {
                    requestId: `apr_${sha256Hex(`${turn.turnId}:${call.callId}`).slice(0, 24)}`,
                    callId: call.callId,
                    tool: call.name,
                    args: parsed.ok ? parsed.args : call.args,
                  },
                },
              },
            ]);
            await this.#failpoint("F8");
            return false;
          }
          case "reject":
            this.commit([
              this.#rejectedResponse({ callId: call.callId, tool: call.name }, base, { reason: "rejected" }),
            ]);
            return true;
          case "interrupted":
            this.commit([this.#interruptedResponse(call, base)]);
            return true;
          case "dispatch":
            return this.#runCall(call, base, false);
          case "rerun":
            return this.#runCall(call, base, true);
        }
      }
    }
    return false;
  }

  async #failpoint(id: FailpointId) {
    await failpoint(this.deps.config, id);
  }

  /** T1, run, T2 — or, for a rerun after a crash, run and T2 with `toolRecovery: rerun`. */
  async #runCall(call: CallState, base: { turnId: string; runId: string }, rerun: boolean): Promise<boolean> {
    const ids = { ...base, invocationId: call.invocationId };
    const tool = this.#toolFor(call.name);
    const parsed = tool ? parseToolArgs(tool, call.args) : null;
    const idempotencyKey = `${this.deps.sessionId}:${call.callId}`;
    if (!tool || !parsed?.ok) {
      // Unknown tool or bad arguments: a read dispatch and an error the model reads, in one block.
      const issues = !tool
        ? [{ message: `unknown or disabled tool: ${call.name}` }]
        : parsed && !parsed.ok
          ? parsed.issues
          : [];
      const drafts: EventDraft[] = [];
      if (!call.dispatch)
        drafts.push({
          author: "runtime",
          modelVisibility: "hidden",
          ...ids,
          actions: { toolDispatch: { callId: call.callId, tool: call.name, effect: "read", idempotencyKey } },
        });
      drafts.push(responseDraft(call, ids, "error", { code: "invalid_arguments", issues }));
      this.commit(drafts);
      return true;
    }
    const args = parsed.args;
    if (!rerun) {
      this.commit([
        {
          author: "runtime",
          modelVisibility: "hidden",
          ...ids,
          actions: {
            toolDispatch: { callId: call.callId, tool: call.name, effect: tool.effect(args), idempotencyKey },
          },
        },
      ]);
      await this.#failpoint("F4");
    }
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(TOOL_TIMEOUT_MS)]);
    let result: ToolResult;
    try {
      result = await tool.run(args, {
        sessionId: this.deps.sessionId,
        callId: call.callId,
        idempotencyKey,
        signal,
        sql: this.deps.sql,
        blobs: this.deps.store.blobs,
        httpAllowedHosts: this.deps.config.httpAllowedHosts,
        fetch: this.#toolFetch(),
      });
    } catch (err) {
      result = {
        status: "error",
        response: {
          code: signal.aborted ? "aborted" : "tool_failed",
          message: err instanceof Error ? err.message : String(err),
        },
      };
    }
    await this.#failpoint("F6");
    // A stop (or another slice) may have answered this call meanwhile: a late outcome is dropped.
    if (!this.#callStillOpen(call.callId, base.turnId)) return true;
    await this.#commitOutcome(call, ids, result, rerun);
    await this.#failpoint("F7");
    return true;
  }

  /** Fetch for tools; the F5 failpoint fires once the external request has left. */
  #toolFetch(): typeof fetch {
    const f = this.deps.fetch;
    const config = this.deps.config;
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const pending = f(input, init);
      if (config.HW_FAILPOINT?.split(",").includes("F5")) {
        // Give the request time to reach the external system, then stop here (crash tests).
        await new Promise((r) => setTimeout(r, 300));
        await failpoint(config, "F5");
      }
      return pending;
    }) as typeof fetch;
  }

  #callStillOpen(callId: string, turnId: string): boolean {
    if (this.#summary?.openTurn?.turnId !== turnId) return false;
    return !this.deps.store.readByCall(callId).some((e) => e.content?.type === "functionResponse");
  }

  /** T2: archive a large result first, then commit the outcome (and its workspace changes) in one block. */
  async #commitOutcome(
    call: CallState,
    ids: { turnId: string; runId: string; invocationId?: string },
    result: ToolResult,
    rerun: boolean,
  ) {
    const text = serializeToolResponse(result.response);
    const bytes = new TextEncoder().encode(text).byteLength;
    const threshold = this.#summary?.options.offloadThresholdBytes ?? this.deps.config.offloadThresholdBytes;
    let stateDelta: Record<string, unknown> | undefined;
    if (bytes > threshold) {
      // Archive first (its own transaction, read back and checked), placeholder second.
      const mediaType = typeof result.response === "string" ? "text/plain; charset=utf-8" : "application/json";
      const meta = this.deps.store.blobs.put(text, mediaType);
      stateDelta = {
        offload: { sha256: meta.sha256, bytes: meta.bytes, preview: makePlaceholder(call.name, text, meta).preview },
      };
    }
    const actions = {
      ...(rerun ? { toolRecovery: { callId: call.callId, strategy: "rerun" as const } } : {}),
      ...(stateDelta ? { stateDelta } : {}),
    };
    this.commit(
      [responseDraft(call, ids, result.status, result.response, Object.keys(actions).length > 0 ? actions : undefined)],
      ([e]) => {
        if (result.status === "ok" && result.fileChanges?.length)
          applyFileChanges(this.deps.sql, result.fileChanges, e!.seq, e!.at);
      },
    );
    if (bytes > threshold) await this.#failpoint("F10");
  }

  /** Context for the next model call: what `GET /context` shows. Never compacts, never calls a model. */
  buildContext(model?: ModelConfig): NextContext {
    const s = this.#require();
    return buildNextContext(this.deps, this.#contextInput(model ?? s.openTurn?.model ?? s.model));
  }

  #contextInput(model: ModelConfig): ContextInput {
    const s = this.#require();
    const system = s.options.system ? `${BASE_SYSTEM_PROMPT}\n\n${s.options.system}` : BASE_SYSTEM_PROMPT;
    return { summary: s, model, system, tools: this.#toolSpecs() };
  }

  #toolSpecs(): ToolSpec[] {
    return toolSpecs(enabledTools(this.#summary?.options.tools));
  }

  /** Appends the model request, streams the call with retries, then commits the answer. */
  async #callModel(turn: NonNullable<SessionSummary["openTurn"]>, reissue: boolean): Promise<boolean> {
    const base = { turnId: turn.turnId, runId: turn.runId };
    const calls = this.deps.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE kind = 'modelRequest' AND turn_id = ?", turn.turnId)
      .toArray()[0]!.n;
    if (!reissue && calls >= MAX_MODEL_CALLS_PER_TURN) {
      this.#fail(base, "too_many_model_calls", `the turn made ${calls} model calls, the limit`);
      return false;
    }
    let provider: ModelProvider;
    try {
      provider = this.deps.providerFor(turn.model);
    } catch (err) {
      this.#fail(
        base,
        "provider_error",
        `model provider unavailable: ${err instanceof Error ? err.message : String(err)}`,
      );
      return false;
    }
    const signal = this.#abort.signal;
    let ctx: NextContext;
    try {
      ctx = await prepareContext(
        {
          ...this.deps,
          commit: (drafts) => this.commit(drafts),
          provider,
          signal,
          base,
          failpoint: (id) => this.#failpoint(id),
        },
        this.#contextInput(turn.model),
      );
    } catch (err) {
      if (!(err instanceof ContextOverflowError)) throw err;
      this.#fail(base, "context_overflow", err.message);
      return false;
    }
    if (signal.aborted || this.#summary?.openTurn?.turnId !== turn.turnId) return false;
    const request = { messages: ctx.messages, tools: ctx.tools };
    const requestDigest = sha256Hex(canonical(request));
    let invocationId: string;
    if (reissue) {
      const last = this.deps.store.get(turn.lastModelRequestSeq!);
      invocationId = last?.invocationId ?? newId();
    } else {
      invocationId = newId();
      this.commit([
        {
          author: "runtime",
          modelVisibility: "hidden",
          ...base,
          invocationId,
          actions: {
            modelRequest: {
              throughSeq: ctx.throughSeq,
              checkpointId: ctx.checkpoint?.id ?? null,
              estimatedTokens: ctx.estimatedTokens,
              requestDigest,
            },
          },
        },
      ]);
      await this.#failpoint("F1");
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await this.#stream(provider, { model: turn.model, ...request }, signal, invocationId);
        if (signal.aborted || this.#summary?.openTurn?.turnId !== turn.turnId) return false;
        this.#commitAnswer(answer, { ...base, invocationId });
        await this.#failpoint("F3");
        return true;
      } catch (err) {
        if (signal.aborted || this.#summary?.openTurn?.turnId !== turn.turnId) return false;
        const perr =
          err instanceof ProviderError
            ? err
            : new ProviderError(String((err as Error)?.message ?? err), null, true, undefined, { cause: err });
        if (!perr.retryable || attempt >= RETRY_DELAYS_MS.length) {
          this.#fail(base, "provider_error", `model call failed after ${attempt + 1} attempt(s): ${perr.message}`);
          return false;
        }
        const wait = Math.min(perr.retryAfterMs ?? RETRY_DELAYS_MS[attempt]!, MAX_RETRY_AFTER_MS);
        await this.deps.setAlarm(this.#now() + wait + LEASE_MS);
        await (this.deps.sleep ?? defaultSleep)(wait, signal);
        if (signal.aborted) return false;
      }
    }
  }

  #fail(base: { turnId: string; runId: string }, code: string, message: string) {
    this.commit([
      { author: "runtime", modelVisibility: "hidden", ...base, content: { type: "error", code, message } },
      { author: "runtime", modelVisibility: "hidden", ...base, actions: { turnClose: { reason: "failed" } } },
    ]);
  }

  async #stream(
    provider: ModelProvider,
    request: { model: ModelConfig; messages: NeutralMessage[]; tools: ToolSpec[] },
    signal: AbortSignal,
    invocationId: string,
  ): Promise<ModelAnswer> {
    const answer: ModelAnswer = { text: "", thinking: "", calls: [], usage: null };
    let first = true;
    for await (const part of provider.stream(request, signal)) {
      if (signal.aborted) break;
      switch (part.type) {
        case "text-delta":
          answer.text += part.text;
          this.deps.onDelta({ invocationId, kind: "text", text: part.text });
          break;
        case "thinking-delta":
          answer.thinking += part.text;
          if (part.signature) answer.signature = part.signature;
          if (part.text) this.deps.onDelta({ invocationId, kind: "thinking", text: part.text });
          break;
        case "tool-call":
          answer.calls.push(part);
          break;
        case "usage":
          answer.usage = part;
          break;
      }
      if (first) {
        first = false;
        await this.#failpoint("F2");
      }
    }
    return answer;
  }

  #commitAnswer(answer: ModelAnswer, ids: { turnId: string; runId: string; invocationId: string }) {
    const drafts: EventDraft[] = [];
    const model = { author: "model" as const, modelVisibility: "visible" as const, ...ids };
    if (answer.thinking)
      drafts.push({
        ...model,
        content: {
          type: "thinking",
          text: answer.thinking,
          ...(answer.signature ? { signature: answer.signature } : {}),
        },
      });
    if (answer.text || answer.calls.length === 0)
      drafts.push({ ...model, content: { type: "text", text: answer.text } });
    const seen = new Set<string>();
    for (const c of answer.calls) {
      // Call ids must be unique in the session; a provider that reuses one gets a fresh id.
      const callId =
        !c.callId || seen.has(c.callId) || this.deps.store.readByCall(c.callId).length > 0
          ? `call_${newId()}`
          : c.callId;
      seen.add(callId);
      drafts.push({ ...model, content: { type: "functionCall", callId, name: c.name, args: c.args ?? {} } });
    }
    const lastDraft = drafts[drafts.length - 1]!;
    lastDraft.actions = {
      ...(answer.usage
        ? {
            tokenUsage: {
              inputTokens: answer.usage.inputTokens,
              outputTokens: answer.usage.outputTokens,
              ...(answer.usage.cachedInputTokens !== undefined
                ? { cachedInputTokens: answer.usage.cachedInputTokens }
                : {}),
            },
          }
        : {}),
      ...(answer.calls.length === 0 ? { endInvocation: true } : {}),
    };
    if (Object.keys(lastDraft.actions).length === 0) delete lastDraft.actions;
    this.commit(drafts);
  }
}

export type { SessionOptions };
