import { DurableObject } from "cloudflare:workers";
import { computeThreshold, MIN_THRESHOLD } from "../context";
import {
  ApiError,
  asResult,
  ClientFrame,
  describeIssues,
  MAX_TEXT_BYTES,
  mergeModel,
  REQUEST_ID,
  type Result,
  utf8Bytes,
} from "../contract";
import { type Event, EventStore, sha256Hex, verifyRows } from "../log";
import { createConfiguredProvider, type ModelConfig } from "../model";
import { buildTranscript, type Session, type SessionOptions } from "../projections";
import { SessionRuntime } from "../runtime";
import { applyMigrations } from "../storage";
import { listFiles, parseAllowedHosts, readFileRow } from "../tools";
import { pumpSocket, type SocketAttachment } from "./sockets";

const TICKET_TTL_MS = 60_000;
const MAX_FRAME_BYTES = 1_048_576;

/**
 * One agent session: a thin Durable Object that wires storage, the alarm, sockets and RPC
 * to the runtime and the projections. Every method answers a `Result` (thrown errors lose
 * their fields across RPC).
 */
export class SessionObject extends DurableObject<Env> {
  readonly #store: EventStore;
  readonly #runtime: SessionRuntime;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    const transactionSync = <T>(fn: () => T): T => ctx.storage.transactionSync(fn);
    transactionSync(() => applyMigrations(sql));
    const sessionId = ctx.id.toString();
    this.#store = new EventStore(sql, sessionId, transactionSync);
    this.#runtime = new SessionRuntime({
      sessionId,
      store: this.#store,
      sql,
      transactionSync,
      setAlarm: (at) => ctx.storage.setAlarm(at),
      deleteAlarm: () => ctx.storage.deleteAlarm(),
      // Each provider gets only its own credentials (CONTRACT §1).
      providerFor: (model) => createConfiguredProvider(env, model, (i, init) => fetch(i, init)),
      fetch: (i, init) => fetch(i, init),
      config: {
        httpAllowedHosts: parseAllowedHosts(env.HTTP_TOOL_ALLOWED_HOSTS),
        offloadThresholdBytes: Number(env.OFFLOAD_THRESHOLD_BYTES) || 32_768,
        HW_FAILPOINT: env.HW_FAILPOINT,
        HW_FAILPOINT_URL: env.HW_FAILPOINT_URL,
        secrets: providerSecrets(env),
      },
      onCommit: (events, session) => this.#broadcast(events, session),
      onDelta: (frame) => this.#sendAll(JSON.stringify({ type: "delta", ...frame })),
    });
    void ctx.blockConcurrencyWhile(() => this.#runtime.ensureAlarm(() => ctx.storage.getAlarm()));
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** One slice of the loop; a failed slice is the runtime's to count and back off (CONTRACT §7.13). */
  override async alarm(): Promise<void> {
    await this.#runtime.alarm();
  }

  // ---- RPC -------------------------------------------------------------------------------

  create(input: { options: SessionOptions; model: ModelConfig; parentId: string | null }): Promise<Result<Session>> {
    return asResult(() => {
      const threshold = computeThreshold(input.model.contextWindow, input.model.maxOutputTokens);
      if (threshold < MIN_THRESHOLD)
        throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
      return this.#runtime.create({
        id: this.ctx.id.toString(),
        parentId: input.parentId,
        options: input.options,
        model: input.model,
      });
    });
  }

  getSession(): Promise<Result<Session>> {
    return asResult(() => this.#runtime.session());
  }

  patch(input: { title?: string | null; model?: Partial<ModelConfig> }): Promise<Result<Session>> {
    return asResult(() => {
      const current = this.#runtime.session();
      let model: ModelConfig | undefined;
      if (input.model) {
        model = mergeModel(current.model, input.model);
        const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
        if (threshold < MIN_THRESHOLD)
          throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
      }
      return this.#runtime.patch({ title: input.title, model });
    });
  }

  postMessage(input: { text: string; idempotencyKey?: string; source: string }) {
    return asResult(() => this.#runtime.postMessage(input));
  }

  stop(): Promise<Result<Session>> {
    return asResult(() => this.#runtime.stop());
  }

  decide(input: {
    requestId: string;
    decision: "approve" | "reject";
    reason?: string;
    argsDigest?: string;
  }): Promise<Result<Session>> {
    return asResult(() => this.#runtime.decide(input));
  }

  dismissRecoveryNotice(input: { atSeq: number }): Promise<Result<Session>> {
    return asResult(() => this.#runtime.dismissRecoveryNotice(input));
  }

  readEvents(after: number, limit: number) {
    return asResult(() => {
      this.#runtime.session();
      const head = this.#store.head();
      return { events: this.#store.readAfter(after, limit), ...head };
    });
  }

  /** One page of the export: NDJSON lines exactly as stored. */
  exportPage(after: number, limit: number) {
    return asResult(() => {
      this.#runtime.session();
      const rows = this.#store.readSerializedAfter(after, limit);
      return {
        text: rows.map((r) => `${r.json}\n`).join(""),
        last: rows.at(-1)?.seq ?? after,
        done: rows.length < limit,
      };
    });
  }

  transcript(page: { after: number; limit: number }) {
    return asResult(() => {
      this.#runtime.session();
      const head = this.#store.head().highWater;
      // Bounded: the most recent 5,000 events (the full history is in /events and /export).
      // Interim paging over that window (CONTRACT §7.20) until the bounded projection lands.
      const all = buildTranscript(this.#store.readFrom(Math.max(1, head - 4_999))).filter((i) => i.seq > page.after);
      const items = all.slice(0, page.limit);
      return { items, ...(all.length > page.limit ? { next: items.at(-1)!.seq } : {}) };
    });
  }

  context() {
    return asResult(() => {
      const { throughSeq: _t, tools: _tools, ...view } = this.#runtime.buildContext();
      return view;
    });
  }

  verify() {
    return asResult(() => {
      this.#runtime.session();
      return verifyRows(this.#store.scanRows(), this.ctx.id.toString(), this.#store.blobs);
    });
  }

  archive(sha256: string, offset: number, limit: number | undefined) {
    return asResult(() => {
      this.#runtime.session();
      const meta = this.#store.blobs.meta(sha256);
      if (!meta) throw new ApiError("not_found", "unknown archive ref");
      const bytes = this.#store.blobs.read(sha256, offset, limit)!;
      return { bytes, mediaType: meta.mediaType, total: meta.bytes };
    });
  }

  files(page: { after: string | null; limit: number }) {
    return asResult(() => {
      this.#runtime.session();
      // Interim paging (CONTRACT §7.20) until the bounded listing lands.
      const all = listFiles(this.ctx.storage.sql).filter((f) => page.after === null || f.path > page.after);
      const files = all.slice(0, page.limit);
      return { files, ...(all.length > page.limit ? { next: files.at(-1)!.path } : {}) };
    });
  }

  file(path: string) {
    return asResult(() => {
      this.#runtime.session();
      const row = readFileRow(this.ctx.storage.sql, path);
      if (!row) throw new ApiError("not_found", "no such file");
      return row.content;
    });
  }

  /** A single-use ticket for a browser WebSocket: `<principal>.<random>`, stored as its sha256. */
  createTicket(principal: string) {
    return asResult(() => {
      this.#runtime.session();
      const random = crypto.getRandomValues(new Uint8Array(24));
      const ticket = `${principal}.${btoa(String.fromCharCode(...random)).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]!)}`;
      const expiresAt = Date.now() + TICKET_TTL_MS;
      const sql = this.ctx.storage.sql;
      sql.exec("DELETE FROM tickets WHERE expires_at < ?", Date.now());
      sql.exec(
        "INSERT INTO tickets (hash, principal, expires_at) VALUES (?, ?, ?)",
        sha256Hex(ticket),
        principal,
        expiresAt,
      );
      return { ticket, expiresAt: new Date(expiresAt).toISOString() };
    });
  }

  // ---- WebSocket -------------------------------------------------------------------------

  /** The upgrade, after the Worker checked auth, origin and the `after` shape. */
  override async fetch(request: Request): Promise<Response> {
    await request.arrayBuffer();
    const url = new URL(request.url);
    const principal = request.headers.get("x-hw-principal") ?? "";
    const ticket = url.searchParams.get("ticket");
    const after = Number(url.searchParams.get("after") ?? "0");
    if (!this.#runtime.exists()) return errorResponse("not_found", "session not found");
    if (ticket !== null && !this.#consumeTicket(ticket, principal))
      return errorResponse("unauthorized", "invalid ticket");
    if (after > this.#store.head().highWater) return errorResponse("bad_request", "after: beyond highWater");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    const attachment: SocketAttachment = { principal, cursor: after };
    server.serializeAttachment(attachment);
    server.send(JSON.stringify({ type: "ready", session: this.#runtime.session() }));
    pumpSocket(server, this.#store);
    // CONTRACT §7.18: once caught up, the text streamed so far of a call in flight.
    for (const frame of this.#runtime.inflightReplay()) server.send(JSON.stringify({ type: "delta", ...frame }));
    return new Response(null, { status: 101, webSocket: client });
  }

  #consumeTicket(ticket: string, principal: string): boolean {
    const sql = this.ctx.storage.sql;
    const hash = sha256Hex(ticket);
    const row = sql
      .exec<{ principal: string; expires_at: number }>("SELECT principal, expires_at FROM tickets WHERE hash = ?", hash)
      .toArray()[0];
    if (!row) return false;
    sql.exec("DELETE FROM tickets WHERE hash = ?", hash);
    return row.principal === principal && row.expires_at >= Date.now();
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const send = (frame: unknown) => ws.send(JSON.stringify(frame));
    const size = typeof message === "string" ? utf8Bytes(message) : message.byteLength;
    if (size > MAX_FRAME_BYTES)
      return send({ type: "error", error: { code: "payload_too_large", message: "frame over 1 MiB" } });
    let raw: unknown;
    try {
      raw = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message));
    } catch {
      return send({ type: "error", error: { code: "bad_request", message: "frame is not JSON" } });
    }
    const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : undefined;
    const parsed = ClientFrame.safeParse(raw);
    if (!parsed.success) {
      return send({
        type: "error",
        ...(id ? { id } : {}),
        error: { code: "bad_request", message: describeIssues(parsed.error) },
      });
    }
    const frame = parsed.data;
    let result: Result<unknown>;
    if (frame.type === "message") {
      if (utf8Bytes(frame.text) > MAX_TEXT_BYTES)
        return send({
          type: "error",
          ...(id ? { id } : {}),
          error: { code: "payload_too_large", message: "text over 262144 bytes" },
        });
      result = await this.postMessage({ text: frame.text, idempotencyKey: frame.idempotencyKey, source: "ws" });
    } else if (frame.type === "approval") {
      result = await this.decide({
        requestId: frame.requestId,
        decision: frame.decision,
        reason: frame.reason,
        argsDigest: frame.argsDigest,
      });
    } else {
      result = await this.stop();
    }
    if (result.ok) {
      if (id !== undefined) send({ type: "ack", id, result: result.value });
    } else send({ type: "error", ...(id ? { id } : {}), error: result.error });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  #broadcast(_events: Event[], session: Session | null) {
    for (const ws of this.ctx.getWebSockets()) {
      try {
        pumpSocket(ws, this.#store);
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

  // ---- read-only lookups for the edge (CONTRACT §7.1: sub-resources before bodies) ------

  /** Whether the log holds a permission request with this id (pending or decided). */
  hasApproval(requestId: string): boolean {
    if (!this.#runtime.exists() || !REQUEST_ID.test(requestId)) return false;
    // The same lookup as the runtime's "already decided" check; the pattern admits no LIKE wildcards.
    return (
      this.ctx.storage.sql
        .exec(
          "SELECT 1 FROM events WHERE kind = 'permissionRequest' AND body LIKE ? LIMIT 1",
          `%"requestId":"${requestId}"%`,
        )
        .toArray().length > 0
    );
  }

  /** Whether this session's archive holds a blob with this sha256. */
  hasArchive(sha256: string): boolean {
    return this.#runtime.exists() && this.#store.blobs.meta(sha256) != null;
  }

  /** Whether a WebSocket ticket is valid for `principal` right now; does not use it up. */
  hasTicket(ticket: string, principal: string): boolean {
    const row = this.ctx.storage.sql
      .exec<{ principal: string; expires_at: number }>(
        "SELECT principal, expires_at FROM tickets WHERE hash = ?",
        sha256Hex(ticket),
      )
      .toArray()[0];
    return row !== undefined && row.principal === principal && row.expires_at >= Date.now();
  }
}

/** Every configured provider key, so that no recorded attempt message can hold one (CONTRACT §7.8). */
function providerSecrets(env: Env): string[] {
  const vars = env as unknown as Record<string, unknown>;
  return ["MODEL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"].flatMap((k) =>
    typeof vars[k] === "string" && vars[k] ? [vars[k] as string] : [],
  );
}

function errorResponse(code: ConstructorParameters<typeof ApiError>[0], message: string): Response {
  const err = new ApiError(code, message);
  return Response.json({ error: { code, message } }, { status: err.status });
}
