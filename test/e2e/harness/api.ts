/**
 * Tiny typed helpers over fetch (and `ws`) for the contract's routes (docs/API.md §2, §4).
 * The types here are written from the contract, not imported from src/, so that an e2e
 * test fails when the implementation drifts from what users were promised.
 */
import WebSocket from "ws";

export type Session = {
  id: string;
  title: string | null;
  parentId: string | null;
  status: "idle" | "running" | "waiting_approval" | "waiting" | "recovering" | "failed";
  openTurn: boolean;
  highWater: number;
  headDigest: string;
  model: { provider: string; name: string; contextWindow: number; maxOutputTokens: number };
  pendingApprovals: { requestId: string; callId: string; tool: string; args: unknown }[];
  recoveryNotice: { atSeq: number; rerun: string[]; needsReview: string[] } | null;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  createdAt: string;
  updatedAt: string;
};

export type EventContent =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature?: string }
  | { type: "functionCall"; callId: string; name: string; args: unknown }
  | {
      type: "functionResponse";
      callId: string;
      name: string;
      status: "ok" | "error" | "interrupted" | "rejected";
      response: unknown;
    }
  | { type: "error"; code: string; message: string };

export type Event = {
  seq: number;
  sessionId: string;
  turnId?: string;
  runId?: string;
  invocationId?: string;
  author: "user" | "model" | "tool" | "runtime";
  source?: string;
  at: string;
  modelVisibility: "visible" | "hidden";
  content?: EventContent;
  actions?: {
    stateDelta?: Record<string, unknown>;
    permissionRequest?: { requestId: string; callId: string; tool: string; args: unknown };
    permissionDecision?: { requestId: string; decision: "approve" | "reject"; reason?: string };
    tokenUsage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
    toolDispatch?: { callId: string; tool: string; effect: "read" | "write" | "idempotent"; idempotencyKey: string };
    toolRecovery?: { callId: string; strategy: "rerun" | "interrupted" };
    modelRequest?: {
      throughSeq: number;
      checkpointId: string | null;
      estimatedTokens: number;
      requestDigest: string;
      /** A compaction's own call (docs/API.md §7.29). */
      purpose?: "compaction";
    };
    turnClose?: { reason: "completed" | "stopped" | "failed" };
    endInvocation?: boolean;
  };
  digest: string;
};

export type EventsPage = { events: Event[]; highWater: number; headDigest: string };
export type VerifyResult = { ok: boolean; highWater: number; headDigest: string; problems: string[] };
export type SessionOptions = {
  title?: string;
  system?: string;
  model?: { provider?: string; name?: string; contextWindow?: number; maxOutputTokens?: number };
  tools?: string[];
  approvals?: { tool: string; match?: Record<string, string[]> }[];
  offloadThresholdBytes?: number;
  locationHint?: string;
};
export type ApiErrorBody = { error: { code: string; message: string } };

/** An answer with a status the helper did not expect. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${typeof body === "string" ? body : JSON.stringify(body)}`.slice(0, 2000));
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export type Api = ReturnType<typeof createApi>;

/** Helpers bound to one worker URL and bearer token. */
export function createApi(baseUrl: string, token: string) {
  const base = baseUrl.replace(/\/$/, "");
  const auth = { authorization: `Bearer ${token}` };

  /** Any request, with the bearer token unless `headers.authorization` says otherwise. */
  async function raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...auth, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    return fetch(`${base}${path}`, init);
  }

  async function json<T>(method: string, path: string, body: unknown, expect: number): Promise<T> {
    const res = await raw(method, path, body);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    if (res.status !== expect) throw new ApiError(res.status, parsed, `${method} ${path}`);
    return parsed as T;
  }

  async function textOf(path: string): Promise<string> {
    const res = await raw("GET", path);
    const text = await res.text();
    if (res.status !== 200) throw new ApiError(res.status, text, `GET ${path}`);
    return text;
  }

  const s = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`;

  const api = {
    base,
    token,
    raw,
    createSession: (options: SessionOptions = {}) => json<Session>("POST", "/v1/sessions", options, 201),
    getSession: (id: string) => json<Session>("GET", s(id), undefined, 200),
    listSessions: (query = "") =>
      json<{ sessions: Session[]; next?: string }>("GET", `/v1/sessions${query}`, undefined, 200),
    patchSession: (id: string, body: { title?: string; model?: SessionOptions["model"] }) =>
      json<Session>("PATCH", s(id), body, 200),
    sendMessage: (id: string, text: string, idempotencyKey?: string) =>
      json<{ turnId: string; seq: number }>(
        "POST",
        `${s(id)}/messages`,
        idempotencyKey === undefined ? { text } : { text, idempotencyKey },
        202,
      ),
    stop: (id: string) => json<Session>("POST", `${s(id)}/stop`, undefined, 200),
    decide: (id: string, requestId: string, decision: "approve" | "reject", reason?: string) =>
      json<Session>(
        "POST",
        `${s(id)}/approvals/${encodeURIComponent(requestId)}`,
        reason === undefined ? { decision } : { decision, reason },
        200,
      ),
    events: (id: string, after = 0, limit?: number) =>
      json<EventsPage>(
        "GET",
        `${s(id)}/events?after=${after}${limit === undefined ? "" : `&limit=${limit}`}`,
        undefined,
        200,
      ),
    /** Every event after `after`, paging with the maximum limit. */
    async allEvents(id: string, after = 0): Promise<Event[]> {
      const out: Event[] = [];
      for (let cursor = after; ; ) {
        const page = await api.events(id, cursor, 1000);
        out.push(...page.events);
        const last = page.events.at(-1);
        if (!last || last.seq >= page.highWater) return out;
        cursor = last.seq;
      }
    },
    transcript: (id: string) => json<{ items: unknown[] }>("GET", `${s(id)}/transcript`, undefined, 200),
    context: (id: string) => json<Record<string, unknown>>("GET", `${s(id)}/context`, undefined, 200),
    verify: (id: string) => json<VerifyResult>("GET", `${s(id)}/verify`, undefined, 200),
    exportNdjson: (id: string) => textOf(`${s(id)}/export`),
    files: (id: string) =>
      json<{ files: { path: string; bytes: number; updatedAt: string }[] }>("GET", `${s(id)}/files`, undefined, 200),
    file: (id: string, path: string) => textOf(`${s(id)}/files/${path.split("/").map(encodeURIComponent).join("/")}`),
    ticket: (id: string) => json<{ ticket: string; expiresAt: string }>("POST", `${s(id)}/tickets`, undefined, 201),

    /**
     * Poll the session (and its events) until `predicate` holds. The timeout error shows
     * the last session and the tail of the log.
     */
    async waitFor(
      id: string,
      predicate: (session: Session, events: Event[]) => boolean,
      { timeoutMs = 60_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
    ): Promise<{ session: Session; events: Event[] }> {
      const deadline = Date.now() + timeoutMs;
      // A predicate of the session alone (one parameter, as waitForIdle's) reads no events: the
      // whole log is fetched once it holds, not on every poll of a long wait.
      const sessionOnly = predicate.length < 2;
      let session: Session | undefined;
      let events: Event[] = [];
      let lastError: unknown;
      for (;;) {
        try {
          session = await api.getSession(id);
          if (!sessionOnly) events = await api.allEvents(id);
          if (predicate(session, events)) return { session, events: sessionOnly ? await api.allEvents(id) : events };
        } catch (err) {
          lastError = err;
        }
        if (Date.now() > deadline) {
          if (sessionOnly) events = await api.allEvents(id).catch(() => events);
          const tail = events.slice(-15).map(describeEvent).join("\n");
          throw new Error(
            `waitFor(${id}) timed out after ${timeoutMs} ms\nsession: ${JSON.stringify(session)}\n` +
              `last error: ${String(lastError)}\nlast events:\n${tail}`,
          );
        }
        await sleep(intervalMs);
      }
    },
    /** Wait until the open turn has closed and the session is idle (or failed, when allowed). */
    waitForIdle(id: string, opts: { timeoutMs?: number; allowFailed?: boolean } = {}) {
      return api.waitFor(
        id,
        (s) => !s.openTurn && (s.status === "idle" || (!!opts.allowFailed && s.status === "failed")),
        opts,
      );
    },

    /** Open the session's WebSocket with the Authorization header (docs/API.md §4). */
    connectWs(id: string, opts: { after?: number; headers?: Record<string, string> } = {}) {
      const wsBase = base.replace(/^http/, "ws");
      const q = opts.after === undefined ? "" : `?after=${opts.after}`;
      return connectWs(`${wsBase}${s(id)}/ws${q}`, { ...auth, ...opts.headers });
    },
  };
  return api;
}

/** One line per event, for failure messages. */
export function describeEvent(e: Event): string {
  const c = e.content;
  const what =
    c?.type === "text" || c?.type === "thinking"
      ? `${c.type} ${JSON.stringify(c.text.slice(0, 80))}`
      : c?.type === "functionCall"
        ? `call ${c.name} ${c.callId} ${JSON.stringify(c.args).slice(0, 80)}`
        : c?.type === "functionResponse"
          ? `response ${c.name} ${c.callId} ${c.status} ${JSON.stringify(c.response).slice(0, 80)}`
          : c?.type === "error"
            ? `error ${c.code} ${c.message}`
            : "";
  const actions = e.actions ? Object.keys(e.actions).join(",") : "";
  return `#${e.seq} ${e.author} ${e.modelVisibility} ${what} ${actions ? `[${actions}]` : ""}`.trim();
}

// ---------------------------------------------------------------------------------------------
// WebSocket

export type ServerFrame =
  | { type: "ready"; session: Session }
  | { type: "event"; event: Event }
  | { type: "delta"; invocationId: string; kind: "text" | "thinking"; text: string }
  | { type: "session"; session: Session }
  | { type: "ack"; id: string; result: unknown }
  | { type: "error"; id?: string; error: { code: string; message: string } };

export type WsClient = {
  /** Every frame received so far, in order. */
  frames: ServerFrame[];
  socket: WebSocket;
  /** Resolves with the first frame (from the start of the connection) at or after `from` that matches. */
  waitForFrame(
    predicate: (f: ServerFrame) => boolean,
    opts?: { timeoutMs?: number; from?: number },
  ): Promise<ServerFrame>;
  /** Event frames' events, in arrival order. */
  events(): Event[];
  send(frame: unknown): void;
  close(): Promise<void>;
  /** Resolves when the server closes the socket. */
  closed: Promise<{ code: number; reason: string }>;
};

/**
 * Connect and resolve once open (rejects on an HTTP error answer, with its status).
 * Frames are buffered from the first byte, so nothing sent before a `waitForFrame` is lost.
 */
export function connectWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const frames: ServerFrame[] = [];
    const waiters = new Set<() => void>();
    let closeInfo: { code: number; reason: string } | undefined;
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      socket.once("close", (code, reason) => {
        closeInfo = { code, reason: reason.toString("utf8") };
        for (const w of waiters) w();
        r(closeInfo);
      }),
    );
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      try {
        frames.push(JSON.parse(data.toString()) as ServerFrame);
      } catch {
        frames.push({ type: "error", error: { code: "harness_unparsable_frame", message: data.toString() } });
      }
      for (const w of waiters) w();
    });
    socket.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        reject(new ApiError(res.statusCode ?? 0, body, `WebSocket ${url}`));
      });
    });
    socket.once("error", (err) => reject(err));
    socket.once("open", () => {
      resolve({
        frames,
        socket,
        closed,
        events: () => frames.flatMap((f) => (f.type === "event" ? [f.event] : [])),
        send: (frame) => socket.send(JSON.stringify(frame)),
        waitForFrame(predicate, { timeoutMs = 30_000, from = 0 } = {}) {
          return new Promise((res, rej) => {
            const check = () => {
              const hit = frames.slice(from).find(predicate);
              if (hit) {
                waiters.delete(check);
                clearTimeout(timer);
                res(hit);
              } else if (closeInfo) {
                waiters.delete(check);
                clearTimeout(timer);
                rej(new Error(`WebSocket closed (${closeInfo.code} ${closeInfo.reason}) before the frame arrived`));
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rej(
                new Error(
                  `no matching WebSocket frame within ${timeoutMs} ms; got ${frames.length}: ` +
                    frames
                      .slice(-10)
                      .map((f) => JSON.stringify(f).slice(0, 160))
                      .join("\n"),
                ),
              );
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: async () => {
          if (socket.readyState === WebSocket.CLOSED) return;
          socket.close();
          await Promise.race([closed, sleep(2_000)]);
          if (!closeInfo) socket.terminate();
        },
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Independent export verification (a copy of the shared verify-export.mjs, see that file).

export type ExportVerification = { ok: boolean; problems: string[]; events: Event[]; head: string; pending: string[] };

// A runtime-computed specifier keeps TypeScript (allowJs: false) from resolving the .mjs;
// the shape is declared here instead.
const verifyModule = (await import(new URL("./verify-export.mjs", import.meta.url).href)) as {
  verifyExport(text: string): ExportVerification;
};

/** Check an NDJSON export against docs/API.md §3 without any code from src/. */
export function verifyExportIndependently(ndjson: string): ExportVerification {
  return verifyModule.verifyExport(ndjson);
}
