/**
 * The session's WebSocket, kept open (docs/API.md §4). Reconnecting (backoff, one fresh URL per
 * attempt) is partysocket's; the URL provider first catches up over HTTP in full pages, then asks
 * for `after=<last seq delivered>` and, for browsers, a fresh single-use ticket. The seq logic is
 * ours: `onFrame` sees each event exactly once and in order across reconnects (a replayed event at
 * or below the cursor is dropped; a gap reconnects from the cursor). The client pings; a socket
 * that hears nothing, not even a pong, for `silenceMs` is dead however open it looks, and is replaced.
 */
import ReconnectingWebSocket from "partysocket/ws";
import type { Event, ServerFrame, Ticket } from "../contract";
import {
  type AckResult,
  type ClientFrameBody,
  type Connection,
  type ConnectionState,
  type ConnectOptions,
  HighwaterError,
  newIdempotencyKey,
  STATUS_OF,
  type WebSocketConstructor,
} from "./types";

const PING_EVERY_MS = 7_000;
/** No frame at all (not even a pong) for this long means the socket is dead (issue: ~20 s). */
const SILENCE_LIMIT_MS = 20_000;

/** What a connection needs of its client. */
export type ConnectionDeps = {
  baseUrl: string;
  token: string | undefined;
  WebSocket: WebSocketConstructor | undefined;
  createTicket: (id: string) => Promise<Ticket>;
  history: (id: string, after: number) => AsyncGenerator<Event[]>;
};

export function openConnection(deps: ConnectionDeps, sessionId: string, options: ConnectOptions): Connection {
  const Ctor = deps.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Ctor) throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");
  const auth = options.auth ?? (deps.WebSocket && deps.token ? "header" : "ticket");
  const pingEvery = options.pingEveryMs ?? PING_EVERY_MS;
  const silenceLimit = options.silenceMs ?? SILENCE_LIMIT_MS;
  const wsBase = deps.baseUrl.replace(/^http/, "ws");
  const token = deps.token;

  let lastSeq = options.after ?? 0;
  let state: ConnectionState = "connecting";
  let everOpen = false;
  let closed = false;
  let lastHeard = Date.now();
  let frameId = 0;
  let nextTicket = options.ticket;
  const pending = new Map<string, { resolve: (v: never) => void; reject: (e: HighwaterError) => void }>();

  const setState = (s: ConnectionState) => {
    if (s === state) return;
    state = s;
    options.onState?.(s);
  };
  const failPending = () => {
    for (const p of pending.values())
      p.reject(new HighwaterError(0, "disconnected", "the socket closed before an answer"));
    pending.clear();
  };
  const lost = () => {
    failPending();
    if (!closed) setState(everOpen ? "reconnecting" : "connecting");
  };

  /** Catch-up over HTTP full pages (docs/API.md §7.21); any failure leaves the rest to the socket's replay. */
  const catchUpPages = async () => {
    try {
      for await (const events of deps.history(sessionId, lastSeq)) {
        for (const event of events) {
          if (closed) return;
          if (event.seq <= lastSeq) continue;
          if (event.seq !== lastSeq + 1) return;
          lastSeq = event.seq;
          options.onFrame({ type: "event", event });
        }
      }
    } catch {
      // The socket replays from `lastSeq`, whatever the pages delivered.
    }
  };

  // One URL per attempt: history in full pages first, then the cursor as of now and a fresh ticket.
  const url = async (): Promise<string> => {
    if ((options.catchUp ?? "pages") === "pages") await catchUpPages();
    let u = `${wsBase}/v1/sessions/${encodeURIComponent(sessionId)}/ws?after=${lastSeq}`;
    if (auth === "ticket") {
      let ticket = nextTicket;
      nextTicket = undefined;
      if (!ticket) {
        try {
          ticket = (await deps.createTicket(sessionId)).ticket;
        } catch (err) {
          const e = err as HighwaterError;
          if ([401, 403, 404, 503].includes(e.status)) giveUp(e);
          throw err;
        }
      }
      u += `&ticket=${encodeURIComponent(ticket)}`;
    }
    return u;
  };
  // Programs authenticate with the header; partysocket calls `new WS(url)`.
  const WS =
    auth === "header" && token
      ? function HeaderAuthWebSocket(u: string) {
          return new Ctor(u, { headers: { authorization: `Bearer ${token}` } });
        }
      : Ctor;
  const rws = new ReconnectingWebSocket(url, null, {
    WebSocket: WS,
    minReconnectionDelay: options.minDelayMs ?? 250,
    maxReconnectionDelay: options.maxDelayMs ?? 10_000,
    reconnectionDelayGrowFactor: 2,
    // An upgrade to an object that is starting (or a loaded dev machine) can take seconds;
    // cutting it short only starts the next attempt from scratch.
    connectionTimeout: 20_000,
  });
  const giveUp = (error: HighwaterError) => {
    if (closed) return;
    closed = true;
    clearInterval(pingTimer);
    rws.close(1000, "gave up");
    failPending();
    setState("closed");
    options.onFatal?.(error);
  };

  const onMessage = (data: unknown) => {
    lastHeard = Date.now();
    const text = typeof data === "string" ? data : new TextDecoder().decode(data as ArrayBuffer);
    let frame: ServerFrame | { type: "pong" };
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (frame.type === "pong") return;
    if (frame.type === "event") {
      const seq = frame.event.seq;
      if (seq <= lastSeq) return;
      if (seq !== lastSeq + 1) {
        // Never deliver out of order: start again from what was delivered.
        lost();
        rws.reconnect(4000, "gap");
        return;
      }
      lastSeq = seq;
    } else if (frame.type === "ready") {
      everOpen = true;
      setState("open");
    } else if ((frame.type === "ack" || frame.type === "error") && frame.id !== undefined && pending.has(frame.id)) {
      const p = pending.get(frame.id)!;
      pending.delete(frame.id);
      if (frame.type === "ack") p.resolve(frame.result as never);
      else p.reject(new HighwaterError(STATUS_OF[frame.error.code] ?? 0, frame.error.code, frame.error.message));
      return;
    }
    options.onFrame(frame);
  };

  rws.addEventListener("open", () => {
    lastHeard = Date.now();
  });
  rws.addEventListener("message", (ev: MessageEvent) => onMessage(ev.data));
  rws.addEventListener("close", lost);
  const pingTimer = setInterval(() => {
    if (closed || rws.readyState !== 1) return;
    if (Date.now() - lastHeard > silenceLimit) {
      // A stalled link can stay "open" for minutes: replace it, from the cursor.
      lost();
      rws.reconnect(4001, "silent");
    } else rws.send('{"type":"ping"}');
  }, pingEvery);

  return {
    get lastSeq() {
      return lastSeq;
    },
    get state() {
      return state;
    },
    get retries() {
      return Math.max(0, rws.retryCount);
    },
    send<F extends ClientFrameBody>(frame: F): Promise<AckResult<F>> {
      if (rws.readyState !== 1 || state !== "open")
        return Promise.reject(new HighwaterError(0, "disconnected", "the socket is not open"));
      const id = `c${++frameId}`;
      // A message always carries an idempotency key, so that resending it is safe.
      const sent =
        frame.type === "message" && !frame.idempotencyKey ? { ...frame, idempotencyKey: newIdempotencyKey() } : frame;
      return new Promise<AckResult<F>>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: never) => void, reject });
        rws.send(JSON.stringify({ ...sent, id }));
      });
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(pingTimer);
      failPending();
      rws.close(1000, "client closed");
      setState("closed");
    },
  };
}
