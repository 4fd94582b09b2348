import { DurableObject } from "cloudflare:workers";
import { computeThreshold, MIN_THRESHOLD } from "../context";
import { ApiError, asResult, errorBody, type Result } from "../contract";
import type { ChildReport, ChildSpawn } from "../features/children/commands";
import { barSpawn, spawnBarred } from "../features/children/port";
import { createFork, type ForkSource, readForkSource } from "../features/fork/commands";
import { appendRecordEntry, getRecord, getRecords, putRecord } from "../features/records/commands";
import type { Event, EventStore } from "../log";
import { createConfiguredProvider, type ModelConfig, type ModelProvider, mergeModel } from "../model";
import type { Session, SessionOptions } from "../projections";
import {
  createTrigger,
  deleteTrigger,
  fireDueTriggers,
  runsOf,
  type Schedule,
  type SessionRuntime,
  startQueuedRun,
  triggerExists,
  triggersOf,
  turnOfRun,
} from "../runtime";
import { failpoint } from "../runtime/failpoints";
import { type ExportConfig, exportConfig } from "../telemetry/export";
import { exportClosedTurns, readTurnTrace, traceExportDue } from "../telemetry/outbox";
import { type ArchivePageReader, pullArchive } from "./fork-archive";
import { readClientFrame } from "./frames";
import { type Caller, ownerHash } from "./ownership";
import { admitRate } from "./rate";
import { archivePage, exportPage, fileContent, filesPage, type Parsed, transcriptPage, verifyLog } from "./reads";
import { isCatchingUp, noteSkippedSession, pumpSocket, replaySocket, type SocketAttachment } from "./sockets";
import {
  adoptedOwner,
  adoptOwner,
  approvalKnown,
  consumeTicket,
  mintTicket,
  ownerPrincipal,
  rememberPrincipal,
  ticketHolder,
} from "./tickets";
import { isWritten, openSession } from "./wiring";

export type { Parsed } from "./reads";

/**
 * One agent session: a thin Durable Object that wires storage, the alarm, sockets and RPC
 * to the runtime and the projections. Every method answers a `Result` (thrown errors lose
 * their fields across RPC).
 */
export class SessionObject extends DurableObject<Env> {
  #store: EventStore | null = null;
  #runtime: SessionRuntime | null = null;
  /** The trace collector from the environment, read once (undefined: not read yet). */
  #exportConfig: ExportConfig | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // CONTRACT §7.26: an object never written stays unwritten (its tables are created in the
    // block that writes seq 1), so that probing a minted but unused id creates nothing.
    if (isWritten(ctx.storage.sql)) {
      const runtime = this.#open();
      // What the last incarnation owed is kept; a runnable turn, or a run queued behind a turn
      // that closed just before a crash, is due now (docs/design.md#where-things-live).
      void ctx.blockConcurrencyWhile(() => runtime.ensureAlarm(() => ctx.storage.getAlarm()));
    }
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /** Migrates and wires the runtime over this object's storage (call inside the seq 1 block for a new one). */
  #open(): SessionRuntime {
    if (this.#runtime) return this.#runtime;
    const opened = openSession(
      this.ctx,
      this.env,
      {
        modelProvider: (model) => this.modelProvider(model),
        onCommit: (events, session) => this.#broadcast(events, session),
        onDelta: (frame) => this.#sendAll(frame),
        principal: () => ownerPrincipal(this.ctx.storage.sql),
      },
      () => traceExportDue(this.ctx.storage.sql, this.traceExporter()?.config ?? null, Date.now()),
    );
    this.#store = opened.store;
    this.#runtime = opened.runtime;
    return opened.runtime;
  }

  /**
   * The one gate of every call from the Worker (CONTRACT §7.26): a session that exists and is
   * the caller's, else the same 404 whether it was never written or is someone else's.
   * Nothing is written either way.
   */
  #admit(caller: Caller): { runtime: SessionRuntime; store: EventStore } {
    // Storage written since this instance started (another path wrote seq 1): open it now.
    if (!this.#runtime && isWritten(this.ctx.storage.sql)) this.#open();
    const runtime = this.#runtime;
    const summary = runtime?.summary;
    // A session from before the owner moved into seq 1 has none there: its principal's directory
    // vouches for it once (`adoptOwner`), then it is admitted like any other (docs/API.md#upgrades).
    const owner = summary ? (summary.owner ?? adoptedOwner(this.ctx.storage.sql)) : null;
    if (summary && !owner) throw new ApiError("not_found", "session not found", { hint: "unowned" });
    if (!runtime || !this.#store || !owner || owner !== ownerHash(this.ctx.id.toString(), caller.principal))
      throw new ApiError("not_found", "session not found");
    return { runtime, store: this.#store };
  }

  /**
   * Where closed turns' traces go (docs/API.md#sending-traces-to-a-collector): the collector
   * configured in the environment and the object's outbound fetch; null when none is set up.
   */
  protected traceExporter(): { config: ExportConfig; fetch: typeof fetch } | null {
    if (this.#exportConfig === undefined) {
      const config = exportConfig(this.env as unknown as Record<string, unknown>);
      if (config && "error" in config) console.error(`highwater: trace export is off: ${config.error}`);
      this.#exportConfig = config && !("error" in config) ? config : null;
    }
    const config = this.#exportConfig;
    return config ? { config, fetch: (i, init) => fetch(i, init) } : null;
  }

  /** The model port for `model` (the bench's subclass answers with a fake in-object model). */
  protected modelProvider(model: ModelConfig): ModelProvider {
    return createConfiguredProvider(this.env, model, (i, init) => fetch(i, init));
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** One slice of the loop; a failed slice is the runtime's to count and back off (CONTRACT §7.13). */
  override async alarm(): Promise<void> {
    const runtime = this.#runtime;
    if (!runtime) return;
    this.#fireTriggers(runtime);
    startQueuedRun(runtime, this.ctx.storage.sql);
    await runtime.alarm();
    await this.#afterTurn(runtime);
    await this.#exportTraces();
  }

  /** The trace-export outbox: closed turns go to the collector; a refusal is retried by the alarm. */
  async #exportTraces(): Promise<void> {
    const exporter = this.traceExporter();
    if (!exporter) return;
    const rearm = async () => this.#runtime?.arm();
    try {
      await exportClosedTurns({
        sql: this.ctx.storage.sql,
        sessionId: this.ctx.id.toString(),
        ...exporter,
        now: () => Date.now(),
        arm: rearm,
        beforeSend: () => failpoint(this.env, "F15"),
      });
    } catch (err) {
      console.error("highwater: trace export failed", err);
    }
    await rearm();
  }

  // ---- RPC: every call names its caller and is admitted first (one RPC per request) ------

  /** Writes seq 1 with the owner (CONTRACT §7.26), in the same block as the object's tables. */
  create(
    caller: Caller,
    input: { options: SessionOptions; model: ModelConfig; parentId: string | null; directoryId?: string },
  ): Promise<Result<Session>> {
    return asResult(() => {
      const threshold = computeThreshold(input.model.contextWindow, input.model.maxOutputTokens);
      if (threshold < MIN_THRESHOLD)
        throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
      if (this.#runtime?.exists()) throw new ApiError("conflict", "session already exists");
      const id = this.ctx.id.toString();
      try {
        return this.ctx.storage.transactionSync(() => {
          const session = this.#open().create({
            id,
            parentId: input.parentId,
            options: input.options,
            model: input.model,
            owner: ownerHash(id, caller.principal),
            ...(input.directoryId ? { directoryId: input.directoryId } : {}),
          });
          rememberPrincipal(this.ctx.storage.sql, caller.principal);
          return session;
        });
      } catch (err) {
        // Rolled back with the tables: the object is as unwritten as before.
        this.#runtime = null;
        this.#store = null;
        throw err;
      }
    });
  }

  /**
   * A session written before the owner moved into seq 1: the Worker found it in `caller`'s
   * directory, which was its record of ownership then, so `caller` becomes its owner. Only a
   * session with no owner at all is adopted; anything else is left as it is.
   */
  adoptOwner(caller: Caller): Promise<Result<{ adopted: boolean }>> {
    return asResult(() => {
      if (!this.#runtime && isWritten(this.ctx.storage.sql)) this.#open();
      const summary = this.#runtime?.summary;
      if (!summary || summary.owner || adoptedOwner(this.ctx.storage.sql)) return { adopted: false };
      adoptOwner(this.ctx.storage.sql, ownerHash(this.ctx.id.toString(), caller.principal), caller.principal);
      return { adopted: true };
    });
  }

  getSession(caller: Caller): Promise<Result<Session>> {
    return asResult(() => this.#admit(caller).runtime.session());
  }

  patch(
    caller: Caller,
    input: { title?: string | null; model?: Partial<ModelConfig>; maxModelCallsPerTurn?: number },
  ): Promise<Result<Session>> {
    return asResult(() => {
      const { runtime } = this.#admit(caller);
      const current = runtime.session();
      let model: ModelConfig | undefined;
      if (input.model) {
        model = mergeModel(current.model, input.model);
        const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
        if (threshold < MIN_THRESHOLD)
          throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
      }
      return runtime.patch({ title: input.title, model, maxModelCallsPerTurn: input.maxModelCallsPerTurn });
    });
  }

  /** The open turn a chat stream follows (docs/API.md#chat-ai-sdk-ui-message-stream), with the session. */
  chatTurn(caller: Caller): Promise<Result<ChatTurn>> {
    return asResult(() => {
      const { runtime } = this.#admit(caller);
      const open = runtime.summary?.openTurn;
      return { session: runtime.session(), turn: open ? { turnId: open.turnId, startSeq: open.startSeq } : null };
    });
  }

  postMessage(caller: Caller, input: { text: string; idempotencyKey?: string; source: string }) {
    return asResult(() => this.#admit(caller).runtime.postMessage(input));
  }

  stop(caller: Caller): Promise<Result<Session>> {
    return asResult(async () => {
      const { runtime } = this.#admit(caller);
      const session = runtime.stop();
      await this.#afterTurn(runtime);
      return session;
    });
  }

  /**
   * An approval decision. The Worker parsed the body (`parsed`, or why it is invalid); the
   * request id is looked up first, so an unknown approval is 404 before a bad body is 400 (§7.1).
   */
  decide(caller: Caller, requestId: string, parsed: Parsed<DecisionInput>): Promise<Result<Session>> {
    return asResult(() => {
      const { runtime } = this.#admit(caller);
      if (!approvalKnown(this.ctx.storage.sql, requestId)) throw new ApiError("not_found", "unknown approval");
      if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
      return runtime.decide({ requestId, ...parsed.value });
    });
  }
  /** `POST /recovery-notice/dismiss` (CONTRACT §2, §7.11): 409 unless `atSeq` names the current notice. */
  dismissRecoveryNotice(caller: Caller, parsed: Parsed<{ atSeq: number }>): Promise<Result<Session>> {
    return asResult(() => {
      const { runtime } = this.#admit(caller);
      if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
      return runtime.dismissRecoveryNotice(parsed.value);
    });
  }

  /** A page of events with the head, and whether the session may be cached at the edge (CONTRACT §7.22). */
  readEvents(caller: Caller, after: number, limit: number) {
    return asResult(() => {
      const { runtime, store } = this.#admit(caller);
      const head = store.head();
      const cacheable = !runtime.summary?.options.jurisdiction;
      return { events: store.readAfter(after, limit), ...head, cacheable };
    });
  }

  /** `GET /trace`: a turn's OTLP/JSON trace (default: the last closed turn), read from that turn only. */
  turnTrace(caller: Caller, turnId: string | null) {
    return asResult(() => {
      this.#admit(caller);
      return readTurnTrace(this.ctx.storage.sql, this.ctx.id.toString(), turnId);
    });
  }

  /** One page of the export: NDJSON lines exactly as stored. */
  exportPage(caller: Caller, after: number, limit: number) {
    return asResult(() => exportPage(this.#admit(caller).store, after, limit));
  }

  /** One page of the transcript (CONTRACT §7.20), bounded in events and bytes. */
  transcript(caller: Caller, { after, limit }: { after: number; limit: number }) {
    return asResult(() => transcriptPage(this.#admit(caller).store, after, limit));
  }

  context(caller: Caller) {
    return asResult(() => {
      const { throughSeq: _t, tools: _tools, ...view } = this.#admit(caller).runtime.buildContext();
      return view;
    });
  }

  /** `/verify` in chunks with turns between them (CONTRACT §7.20). */
  verify(caller: Caller) {
    return asResult(() => verifyLog(this.#admit(caller).store, this.ctx.id.toString()));
  }

  archive(caller: Caller, sha256: string, range: Parsed<{ offset: number; limit: number | undefined }>) {
    return asResult(() => archivePage(this.#admit(caller).store, sha256, range));
  }

  files(caller: Caller, { after, limit }: { after: string | null; limit: number }) {
    return asResult(() => {
      this.#admit(caller);
      return filesPage(this.ctx.storage.sql, after, limit);
    });
  }

  file(caller: Caller, path: string) {
    return asResult(() => {
      this.#admit(caller);
      return fileContent(this.ctx.storage.sql, path);
    });
  }

  /** A single-use ticket for a browser WebSocket (CONTRACT §2). */
  createTicket(caller: Caller) {
    return asResult(() => {
      this.#admit(caller);
      return mintTicket(this.ctx.storage.sql, caller.principal);
    });
  }

  // ---- WebSocket -------------------------------------------------------------------------

  /** The upgrade, after the Worker checked auth, origin and the `after` shape; the object checks the owner. */
  override async fetch(request: Request): Promise<Response> {
    await request.arrayBuffer();
    const url = new URL(request.url);
    const principal = request.headers.get("x-hw-principal") ?? "";
    const rate = Number(request.headers.get("x-hw-rate-per-minute") ?? "0");
    const ticket = url.searchParams.get("ticket");
    const after = Number(url.searchParams.get("after") ?? "0");
    let admitted: { runtime: SessionRuntime; store: EventStore };
    try {
      admitted = this.#admit({ principal });
    } catch (err) {
      if (err instanceof ApiError) return errorResponse(err.code, err.message);
      throw err;
    }
    const { runtime, store } = admitted;
    if (ticket !== null && !consumeTicket(this.ctx.storage.sql, ticket, principal))
      return errorResponse("unauthorized", "invalid ticket");
    if (after > store.head().highWater) return errorResponse("bad_request", "after: beyond highWater");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = { principal, cursor: after, ...(rate > 0 ? { ratePerMinute: rate } : {}) };
    server.serializeAttachment(attachment);
    server.send(JSON.stringify({ type: "ready", session: runtime.session() }));
    // DESIGN §7: the backlog goes out in bounded pages with turns between them, after this answer.
    this.ctx.waitUntil(
      replaySocket(server, store, {
        onCaughtUp: (missedSession) => {
          if (missedSession) server.send(JSON.stringify({ type: "session", session: runtime.session() }));
          // CONTRACT §7.18: once caught up, the text streamed so far of a call in flight.
          for (const frame of runtime.inflightReplay()) server.send(JSON.stringify({ type: "delta", ...frame }));
        },
      }),
    );
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const send = (frame: unknown) => ws.send(JSON.stringify(frame));
    const read = readClientFrame(message);
    const attachment = ws.deserializeAttachment() as SocketAttachment | null;
    // A frame, malformed or not, is a request like any other: it counts against the principal's
    // rate (docs/API.md#authentication-and-errors), and past it is refused and changes nothing.
    const rate = attachment?.ratePerMinute;
    if (rate && !(await admitRate(this.env, attachment.principal, rate)))
      return send({
        type: "error",
        ...(read.ok && read.id !== undefined ? { id: read.id } : {}),
        ...errorBody("rate_limited", `over ${rate} requests per minute`),
      });
    if (!read.ok) return send(read.error);
    const { id, frame } = read;
    // The socket was admitted for its principal when it connected; each frame is admitted again.
    const caller: Caller = { principal: attachment?.principal ?? "" };
    let result: Result<unknown>;
    if (frame.type === "message") {
      result = await this.postMessage(caller, { text: frame.text, idempotencyKey: frame.idempotencyKey, source: "ws" });
    } else if (frame.type === "approval") {
      const { decision, reason, argsDigest } = frame;
      result = await this.decide(caller, frame.requestId, {
        ok: true,
        value: {
          decision,
          ...(reason !== undefined ? { reason } : {}),
          ...(argsDigest !== undefined ? { argsDigest } : {}),
        },
      });
    } else {
      result = await this.stop(caller);
    }
    if (result.ok) {
      if (id !== undefined) send({ type: "ack", id, result: result.value });
    } else
      send({
        type: "error",
        ...(id !== undefined ? { id } : {}),
        ...errorBody(result.error.code, result.error.message),
      });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  #broadcast(_events: Event[], session: Session | null) {
    const store = this.#store;
    if (!store) return;
    for (const ws of this.ctx.getWebSockets()) {
      try {
        // A socket still replaying gets these events from its replay, and the session once caught up.
        if (isCatchingUp(ws)) {
          if (session) noteSkippedSession(ws);
          continue;
        }
        pumpSocket(ws, store);
        if (session) ws.send(JSON.stringify({ type: "session", session }));
      } catch {
        // A socket that cannot take a frame is closing; it catches up from its cursor on reconnect.
      }
    }
  }

  #sendAll(frame: string) {
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(frame);
      } catch {
        // closing
      }
    }
  }

  /** Whose a valid WebSocket ticket is (the Worker cannot tell: tickets are opaque); null if none. Writes nothing. */
  ticketHolder(ticket: string): string | null {
    return this.#runtime?.exists() === true ? ticketHolder(this.ctx.storage.sql, ticket) : null;
  }

  // ---- waits (CONTRACT §6) ---------------------------------------------------------------

  /**
   * `POST /runs/:runId/resume`: releases the current wait of the run's turn, else 409. The run
   * is looked up before a bad body is answered (CONTRACT §7.1).
   */
  resume(
    caller: Caller,
    runId: string,
    parsed: Parsed<{ waitId: string; text?: string }>,
  ): Promise<Result<{ seq: number }>> {
    return asResult(() => {
      const { runtime } = this.#admit(caller);
      const turnOfRunId = turnOfRun(this.ctx.storage.sql, runId);
      if (turnOfRunId === undefined) throw new ApiError("not_found", "unknown run");
      if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
      return runtime.resume({ turnOfRun: turnOfRunId, waitId: parsed.value.waitId, text: parsed.value.text ?? "" });
    });
  }

  // ---- work beyond one turn: inbox, triggers, runs (CONTRACT §6) -------------------------

  /** An external message: opens a turn or joins the open one, recorded as `inbox:<source>`. */
  postInbox(caller: Caller, input: { source: string; text: string; correlationId?: string }) {
    return asResult(() =>
      this.#admit(caller).runtime.postMessage({
        text: input.text,
        source: `inbox:${input.source}`,
        ...(input.correlationId ? { idempotencyKey: input.correlationId } : {}),
      }),
    );
  }

  createTrigger(caller: Caller, input: { name: string; text: string; schedule: Schedule }) {
    return asResult(async () => {
      const { runtime } = this.#admit(caller);
      const trigger = createTrigger(runtime, this.ctx.storage.sql, input);
      await runtime.arm();
      return trigger;
    });
  }

  /** Stops a trigger; an unknown name is 404 before a bad body is 400 (CONTRACT §7.1). */
  deleteTrigger(caller: Caller, name: string, parsed: Parsed<void>) {
    return asResult(async () => {
      const { runtime } = this.#admit(caller);
      if (!triggerExists(this.ctx.storage.sql, name)) throw new ApiError("not_found", "unknown trigger");
      if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
      deleteTrigger(runtime, this.ctx.storage.sql, name);
      // The alarm moves to whatever else is owed (a lease, a retry, the outbox, the next trigger).
      await runtime.arm();
    });
  }

  listTriggers(caller: Caller, page: { after: string | null; limit: number }) {
    return asResult(() => triggersOf(this.#admit(caller).runtime, this.ctx.storage.sql, page));
  }

  listRuns(caller: Caller, page: { before: number | null; limit: number }) {
    return asResult(() => runsOf(this.#admit(caller).runtime, this.ctx.storage.sql, page));
  }

  /** Fires what is due; a failure here must not keep the run loop from its slice. */
  #fireTriggers(runtime: SessionRuntime) {
    try {
      fireDueTriggers(runtime, this.ctx.storage.sql);
    } catch (err) {
      console.error("highwater: firing triggers failed", err);
    }
  }

  /** With no turn open, a run queued behind the last one starts, in a fresh slice. */
  async #afterTurn(runtime: SessionRuntime) {
    startQueuedRun(runtime, this.ctx.storage.sql);
    await runtime.arm();
  }

  // ---- work records (CONTRACT §6) ------------------------------------------------------

  records(caller: Caller) {
    return asResult(() => getRecords(this.#admit(caller).runtime));
  }

  record(caller: Caller, topic: string, page: { after?: number; limit?: number } = {}) {
    return asResult(() => getRecord(this.#admit(caller).runtime, topic, page));
  }

  putRecord(caller: Caller, input: { topic: string; content: string; expectedRevision: number; coversEntry?: number }) {
    return asResult(() => putRecord(this.#admit(caller).runtime, input.topic, input));
  }

  appendRecordEntry(caller: Caller, input: { topic: string; text: string; refs?: number[] }) {
    return asResult(() => appendRecordEntry(this.#admit(caller).runtime, input.topic, input));
  }

  // ---- fork (CONTRACT §6, §7.30) -------------------------------------------------------

  /** The parent's side: its state as of `throughSeq`. Reads only. */
  forkSource(caller: Caller, throughSeq: number): Promise<Result<ForkSource>> {
    return asResult(() => readForkSource(this.#admit(caller).runtime, throughSeq));
  }

  /**
   * The fork's side: its first events with the caller as owner, written in one block with its
   * tables. Like any session it keeps its owner's principal and directory, so it can spawn.
   */
  createFork(caller: Caller, input: { source: ForkSource; directoryId?: string }): Promise<Result<Session>> {
    return asResult(async () => {
      if (this.#runtime?.exists()) throw new ApiError("conflict", "session already exists");
      // The archived results the prefix shows, copied from the parent a page per reply.
      const ns = this.env.SESSIONS;
      const parent = ns.get(ns.idFromString(input.source.forkedFrom.sessionId)) as unknown as {
        archive: (...a: Parameters<SessionObject["archive"]>) => ReturnType<ArchivePageReader>;
      };
      const archive = await pullArchive(
        (sha, offset, limit) => parent.archive(caller, sha, { ok: true, value: { offset, limit } }),
        input.source.archive,
      );
      if (this.#runtime?.exists()) throw new ApiError("conflict", "session already exists");
      const id = this.ctx.id.toString();
      try {
        return this.ctx.storage.transactionSync(() => {
          const session = createFork(this.#open(), {
            id,
            source: input.source,
            owner: ownerHash(id, caller.principal),
            archive,
            ...(input.directoryId ? { directoryId: input.directoryId } : {}),
          });
          rememberPrincipal(this.ctx.storage.sql, caller.principal);
          return session;
        });
      } catch (err) {
        this.#runtime = null;
        this.#store = null;
        throw err;
      }
    });
  }

  // ---- sub-sessions (CONTRACT §6 spawn_session): calls between objects, not from the Worker ----

  /**
   * The parent's idempotent create of this child: session and goal once, keyed by the callId.
   * The child belongs to its parent's principal (CONTRACT §2), recorded as its own owner hash.
   */
  createChild(input: ChildSpawn & { principal: string }): Promise<Result<Session>> {
    return asResult(async () => {
      const { principal, ...spawn } = input;
      if (!this.#runtime?.exists() && spawnBarred(this.ctx.storage.kv, spawn))
        throw new ApiError("conflict", "the parent stopped this sub-session before it was created");
      const runtime = this.ctx.storage.transactionSync(() => {
        const rt = this.#open();
        rememberPrincipal(this.ctx.storage.sql, principal);
        return rt;
      });
      return runtime.createChild({ ...spawn, owner: ownerHash(this.ctx.id.toString(), principal) });
    });
  }

  /** A child's report of its goal turn's close; appended once per callId, always acknowledged. */
  childReport(input: ChildReport): Promise<Result<{ acked: true }>> {
    return asResult(() => {
      if (!this.#runtime?.exists()) throw new ApiError("not_found", "session not found");
      return this.#runtime.childReport(input);
    });
  }

  /**
   * The parent's stop of this child (docs/API.md#sub-sessions: stopping the parent stops its
   * children). A child not created yet is barred from being created, so the stop holds; a
   * written session that is not the spawn's child is `not_found` (which the parent never takes
   * as acknowledged). A run queued behind the stopped turn then starts, as after any stop.
   */
  stopFromParent(spawn: { parentId: string; callId: string }): Promise<Result<Session | null>> {
    return asResult(async () => {
      if (!this.#runtime && isWritten(this.ctx.storage.sql)) this.#open();
      const runtime = this.#runtime;
      if (!runtime?.exists()) {
        barSpawn(this.ctx.storage.kv, spawn);
        return null;
      }
      const by = runtime.summary?.children?.spawnedBy;
      if (by?.sessionId !== spawn.parentId || by.callId !== spawn.callId)
        throw new ApiError("not_found", "session not found");
      runtime.stop();
      await this.#afterTurn(runtime);
      return runtime.session();
    });
  }
}

function errorResponse(code: ConstructorParameters<typeof ApiError>[0], message: string): Response {
  return Response.json(errorBody(code, message), { status: new ApiError(code, message).status });
}

/** A session and its open turn, if any: where a chat stream starts. */
export type ChatTurn = { session: Session; turn: { turnId: string; startSeq: number } | null };

type DecisionInput = { decision: "approve" | "reject"; reason?: string; argsDigest?: string };
