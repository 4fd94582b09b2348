import { DurableObject } from "cloudflare:workers";
import { ApiError, asResult, type Result } from "../contract/errors";
import { createConfiguredProvider, type ModelConfig, type ModelProvider } from "../model";
import type { InputAnswer, Session } from "../projections";
import type { ChildReport, ChildSpawn } from "../runtime/children";
import type { RemoteNotice } from "../runtime/remote";
import { readTurnTrace, traceExportDue } from "../telemetry/outbox";
import { type Admitted, admit, adoptOnce, type Caller, ownerPrincipal } from "./admission";
import { type ChatEventsPage, type ChatWindow, type ChatWindowQuery, chatEventsPage, chatWindow } from "./chat-reads";
import { refuseBarred, stopFromParent } from "./children-rpc";
import type { ChatTurn, CreateInput, DecisionInput } from "./commands";
import * as commands from "./commands";
import { type Creation, creationsOf, type ObjectFeature, type Operation, operationsOf } from "./feature";
import type { Parsed } from "./reads";
import * as reads from "./reads";
import { acceptSocket, answerFrame, readUpgrade } from "./socket-rpc";
import { broadcast, sendAll } from "./sockets";
import { mintTicket, ticketHolder } from "./tickets";
import { collectorOf, exportTraces, type TraceExporter } from "./traces";
import { isWritten, type Opened, openSession } from "./wiring";

/**
 * One agent session: a thin Durable Object that wires storage, the alarm, sockets and RPC to the
 * runtime, the features and the reads. Every RPC method goes through `#rpc`: admitted first, and
 * answered as a `Result` (thrown errors lose their fields across RPC).
 */
export class SessionObject extends DurableObject<Env> {
  #opened: Opened | null = null;
  readonly #id = this.ctx.id.toString();
  readonly #sql = this.ctx.storage.sql;

  readonly #features: readonly ObjectFeature[];
  readonly #operations: ReadonlyMap<string, Operation>;
  readonly #creations: ReadonlyMap<string, Creation>;

  /** `features`: the deployment's, handed down by `createHighwater` (docs/design.md#plugs). */
  constructor(ctx: DurableObjectState, env: Env, features: readonly ObjectFeature[] = []) {
    super(ctx, env);
    this.#features = features;
    this.#operations = operationsOf(features);
    this.#creations = creationsOf(features);
    // docs/API.md#authentication-and-errors: an object never written stays unwritten (its tables
    // are created in the block that writes seq 1), so probing a minted but unused id creates nothing.
    if (isWritten(ctx.storage.sql)) {
      const { runtime } = this.#open();
      // What the last incarnation owed is kept; a runnable turn, or a run queued behind a turn
      // that closed just before a crash, is due now (docs/design.md#where-things-live).
      void ctx.blockConcurrencyWhile(() => runtime.ensureAlarm(() => ctx.storage.getAlarm()));
    }
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /** Migrates and wires the runtime over this object's storage (call inside the seq 1 block for a new one). */
  #open(): Opened {
    this.#opened ??= openSession(
      this.ctx,
      this.env,
      {
        modelProvider: (model) => this.modelProvider(model),
        onCommit: (_events, session) => {
          if (this.#opened) broadcast(this.ctx.getWebSockets(), this.#opened.store, session);
        },
        onDelta: (frame) => sendAll(this.ctx.getWebSockets(), frame),
        principal: () => ownerPrincipal(this.#sql),
      },
      () => traceExportDue(this.#sql, this.traceExporter()?.config ?? null, Date.now()),
      this.#features,
    );
    return this.#opened;
  }

  /** Storage written since this instance started (another path wrote seq 1) is opened now. */
  #opening(): Opened | null {
    return this.#opened ?? (isWritten(this.#sql) ? this.#open() : null);
  }

  #admit(caller: Caller): Admitted {
    return admit(this.#opening(), this.#sql, this.#id, caller);
  }

  /** The one path of every call from the Worker: admission, then `fn`, answered as a `Result`. */
  #rpc<T>(caller: Caller, fn: (admitted: Admitted) => T | Promise<T>): Promise<Result<T>> {
    return asResult(() => fn(this.#admit(caller)));
  }

  /** A first write (a session or a fork): tables and seq 1 in one block, or as unwritten as before. */
  #firstWrite<T>(write: (opened: Opened) => T): T {
    try {
      return this.ctx.storage.transactionSync(() => write(this.#open()));
    } catch (err) {
      this.#opened = null;
      throw err;
    }
  }

  #refuseExisting(): void {
    if (this.#opened?.runtime.exists()) throw new ApiError("conflict", "session already exists");
  }

  /** Where closed turns' traces go: the configured collector and the object's outbound fetch; null when none. */
  protected traceExporter(): TraceExporter | null {
    return collectorOf(this.env);
  }

  /** The model port for `model` (a subclass may answer with another provider). */
  protected modelProvider(model: ModelConfig): ModelProvider {
    return createConfiguredProvider(this.env, model, (i, init) => fetch(i, init));
  }

  /** One slice of the loop; a failed slice is the runtime's to count and back off. */
  override async alarm(): Promise<void> {
    if (!this.#opened) return;
    this.#opened.runtime.fired();
    await this.#opened.runtime.wake();
    const rearm = async () => this.#opened?.runtime.arm();
    await exportTraces(this.traceExporter(), { sql: this.#sql, sessionId: this.#id, env: this.env, rearm });
  }

  // ---- RPC: every call names its caller and is admitted first (one RPC per request) ------

  /** Writes seq 1 with the owner, in the same block as the object's tables. */
  create(caller: Caller, input: CreateInput): Promise<Result<Session>> {
    return asResult(() => {
      commands.checkThreshold(input.model);
      this.#refuseExisting();
      return this.#firstWrite(({ runtime }) =>
        commands.createOwned({ runtime, sql: this.#sql }, this.#id, caller.principal, input),
      );
    });
  }

  /** A session from before the owner moved into seq 1 (docs/API.md#upgrades). */
  adoptOwner(caller: Caller): Promise<Result<{ adopted: boolean }>> {
    return asResult(() => adoptOnce(this.#opening(), this.#sql, this.#id, caller));
  }

  /** The one path of a feature's operation (docs/design.md#plugs): admitted, then the operation. */
  call(caller: Caller, feature: string, operation: string, input: unknown): Promise<Result<unknown>> {
    return this.#rpc(caller, (admitted) => {
      const op = this.#operations.get(`${feature}/${operation}`);
      if (!op) throw new ApiError("not_found", `no operation ${feature}/${operation}`);
      return op(admitted, input);
    });
  }

  /**
   * The one path of a feature's first write (docs/design.md#plugs), a session made from elsewhere
   * (a fork): refused if this object exists, before and after `prepare`; then seq 1 on with the
   * caller as owner, in one block with the object's tables.
   */
  createBy(caller: Caller, feature: string, creation: string, input: unknown): Promise<Result<Session>> {
    return asResult(async () => {
      const c = this.#creations.get(`${feature}/${creation}`);
      if (!c) throw new ApiError("not_found", `no creation ${feature}/${creation}`);
      this.#refuseExisting();
      const prepared = c.prepare ? await c.prepare({ env: this.env, caller }, input) : input;
      this.#refuseExisting();
      return this.#firstWrite(({ runtime }) =>
        commands.createdBy(this.#sql, this.#id, caller.principal, (owner) =>
          c.write({ runtime, id: this.#id, owner }, prepared),
        ),
      );
    });
  }

  getSession(caller: Caller): Promise<Result<Session>> {
    return this.#rpc(caller, ({ runtime }) => runtime.session());
  }
  patch(caller: Caller, input: Parameters<typeof commands.patchSession>[1]): Promise<Result<Session>> {
    return this.#rpc(caller, (a) => commands.patchSession(a, input));
  }
  chatTurn(caller: Caller): Promise<Result<ChatTurn>> {
    return this.#rpc(caller, commands.chatTurn);
  }
  chatWindow(caller: Caller, query: Parsed<ChatWindowQuery>): Promise<Result<ChatWindow>> {
    return this.#rpc(caller, ({ sql }) => chatWindow(sql, (f) => this.ctx.storage.transactionSync(f), query));
  }
  /** A page of a chat route's events, as the model saw them (docs/API.md#chat-ai-sdk-ui-message-stream). */
  chatEvents(caller: Caller, after: number, through: number | null): Promise<Result<ChatEventsPage>> {
    return this.#rpc(caller, ({ runtime }) => chatEventsPage(runtime.deps.view, after, through));
  }
  postMessage(caller: Caller, input: { text: string; idempotencyKey?: string; source: string }) {
    return this.#rpc(caller, ({ runtime }) => runtime.postMessage(input));
  }
  stop(caller: Caller): Promise<Result<Session>> {
    return this.#rpc(caller, commands.stopSession);
  }
  decide(caller: Caller, requestId: string, parsed: Parsed<DecisionInput>): Promise<Result<Session>> {
    return this.#rpc(caller, (a) => commands.decide(a, requestId, parsed));
  }
  answerInput(caller: Caller, requestId: string, parsed: Parsed<InputAnswer>): Promise<Result<Session>> {
    return this.#rpc(caller, (a) => commands.answerInput(a, requestId, parsed));
  }
  dismissRecoveryNotice(caller: Caller, parsed: Parsed<{ atSeq: number }>): Promise<Result<Session>> {
    return this.#rpc(caller, (a) => commands.dismissRecoveryNotice(a, parsed));
  }
  readEvents(caller: Caller, after: number, limit: number) {
    return this.#rpc(caller, (a) => reads.eventsPage(a, after, limit));
  }

  /** `GET /trace`: a turn's OTLP/JSON trace (default: the last closed turn), read from that turn only. */
  turnTrace(caller: Caller, turnId: string | null) {
    return this.#rpc(caller, ({ sql }) => readTurnTrace(sql, this.#id, turnId));
  }
  exportPage(caller: Caller, after: number, limit: number) {
    return this.#rpc(caller, ({ store }) => reads.exportPage(store, after, limit));
  }
  transcript(caller: Caller, { after, limit }: { after: number; limit: number }) {
    return this.#rpc(caller, ({ store, runtime }) =>
      reads.transcriptPage(store, after, limit, () => runtime.turnSuffix()),
    );
  }
  context(caller: Caller) {
    return this.#rpc(caller, reads.contextView);
  }
  verify(caller: Caller) {
    return this.#rpc(caller, ({ store }) => reads.verifyLog(store, this.#id));
  }
  archive(caller: Caller, sha256: string, range: Parsed<{ offset: number; limit: number | undefined }>) {
    return this.#rpc(caller, ({ store }) => reads.archivePage(store, sha256, range));
  }
  files(caller: Caller, { after, limit }: { after: string | null; limit: number }) {
    return this.#rpc(caller, ({ sql }) => reads.filesPage(sql, after, limit));
  }
  file(caller: Caller, path: string) {
    return this.#rpc(caller, ({ sql }) => reads.fileContent(sql, path));
  }

  /** A single-use ticket for a browser WebSocket (docs/API.md#live-updates-over-a-websocket). */
  createTicket(caller: Caller) {
    return this.#rpc(caller, ({ sql }) => mintTicket(sql, caller.principal));
  }

  /** Whose a valid WebSocket ticket is (the Worker cannot tell: tickets are opaque); null if none. Writes nothing. */
  ticketHolder(ticket: string): string | null {
    return this.#opened?.runtime.exists() === true ? ticketHolder(this.#sql, ticket) : null;
  }

  // ---- WebSocket -------------------------------------------------------------------------

  /** The upgrade, after the Worker checked auth, origin and the `after` shape; the object checks the owner. */
  override async fetch(request: Request): Promise<Response> {
    await request.arrayBuffer();
    return acceptSocket(this.ctx, readUpgrade(request), (caller) => this.#admit(caller));
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await answerFrame(ws, this.env, message, this);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  // ---- sub-sessions: calls between objects, not from the Worker (docs/API.md#tools) -----

  /**
   * The parent's idempotent create of this child: session and goal once, keyed by the callId.
   * The child belongs to its parent's principal, recorded as its own owner hash.
   */
  createChild(input: ChildSpawn & { principal: string }): Promise<Result<Session>> {
    return asResult(async () => {
      refuseBarred(this.#opened?.runtime, this.ctx.storage.kv, input);
      const { runtime } = this.ctx.storage.transactionSync(() =>
        commands.keepPrincipal(this.#open(), this.#sql, input),
      );
      return commands.createChild(runtime, this.#id, input);
    });
  }

  /** A child's report of its goal turn's close; appended once per callId, always acknowledged. */
  childReport(input: ChildReport): Promise<Result<{ acked: true }>> {
    return asResult(() => this.#child().childReport(input));
  }

  /** The parent's stop of this child (docs/API.md#sub-sessions); a child not created yet is barred. */
  stopFromParent(spawn: { parentId: string; callId: string }): Promise<Result<Session | null>> {
    return asResult(() => stopFromParent(this.#opening()?.runtime, this.ctx.storage.kv, spawn));
  }

  /**
   * A push notification about a remote task (docs/design.md#remote-calls), from a feature's route:
   * not admitted, since its token is the credential; 404 unless the token names a wait (or a late
   * task) of this session and the task is that wait's.
   */
  remoteNotice(input: RemoteNotice): Promise<Result<{ recorded: boolean }>> {
    return asResult(() => this.#child().remoteNotice(input));
  }

  #child() {
    const runtime = this.#opened?.runtime;
    if (!runtime?.exists()) throw new ApiError("not_found", "session not found");
    return runtime;
  }
}
