/**
 * What the client and its connection share: the error class, the socket shapes and the
 * connection's options. Wire types come from the contract, once.
 */
import type { Accepted, ClientFrameBody, ServerFrame, Session } from "../contract";
import { ERROR_STATUS } from "../contract/errors";

/** The contract's frame types under their own names: `send` takes a body, the connection adds the `id`. */
export type { ClientFrame, ClientFrameBody } from "../contract/frames";

export type AckResult<F extends ClientFrameBody> = F extends { type: "message" } ? Accepted : Session;

/** Contract error codes and their HTTP status, so socket errors carry a status too. */
export const STATUS_OF: Record<string, number> = ERROR_STATUS;

/**
 * A failed call, on the contract's error shape `{ error: { code, message } }`. `status` is 0
 * (and `code` `network_error` or `disconnected`) when no answer arrived at all.
 */
export class HighwaterError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HighwaterError";
    this.status = status;
    this.code = code;
  }
}

/** The slice of a WebSocket this client uses: the browser's, Node's `ws` and undici's all fit. */
export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: implementations differ in their event types
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: any) => void): void;
  // biome-ignore lint/suspicious/noExplicitAny: implementations differ in their event types
  removeEventListener(type: "open" | "message" | "close" | "error", listener: (event: any) => void): void;
};

/** `new WebSocket(url)` in browsers; `new WebSocket(url, { headers })` for `ws` in Node. */
export type WebSocketConstructor = new (url: string, options?: { headers?: Record<string, string> }) => WebSocketLike;

export type ClientOptions = {
  /** Where the Worker is, e.g. `http://127.0.0.1:8787` or `location.origin`. */
  baseUrl: string;
  /** The bearer token; omit for a client that only loads public pages. */
  token?: string;
  /** Defaults to the global `fetch`. */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /**
   * A WebSocket implementation. Defaults to the global one (browsers, Node 22+). Passing one
   * (such as `ws`) makes `connect` authenticate with the Authorization header by default.
   */
  WebSocket?: WebSocketConstructor;
};

/** `connecting` before the first `ready`; `reconnecting` after a loss; `closed` for good. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export type ConnectOptions = {
  /** Deliver events with `seq > after` (default 0). */
  after?: number;
  /** Every frame but pings, in order; an `event` frame is delivered once per seq, never out of order. */
  onFrame: (frame: ServerFrame) => void;
  /** Connection state changes, for a status indicator. */
  onState?: (state: ConnectionState) => void;
  /** A reconnect that cannot succeed (unknown session, revoked token): the connection gives up. */
  onFatal?: (error: HighwaterError) => void;
  /**
   * `ticket`: a single-use ticket per connection from `POST /tickets` (browsers cannot set
   * headers); `header`: `Authorization: Bearer` (Node). Default: `header` when the client was
   * given a WebSocket implementation and a token, else `ticket`.
   */
  auth?: "ticket" | "header";
  /** A ticket for the first connection; later ones fetch their own. */
  ticket?: string;
  /**
   * How history is caught up before (and on every re-)connect: `pages` (default) reads it over
   * HTTP in full pages aligned to `HISTORY_PAGE` (see `history`), which the edge can answer
   * from its cache; the socket then replays only what is past them. `socket`: the socket replays all.
   */
  catchUp?: "pages" | "socket";
  /** Reconnect backoff: first delay and cap, in ms (defaults 250 and 10 000). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** How often to ping (default 7 s) and how long a silence means a dead socket (default 20 s). */
  pingEveryMs?: number;
  silenceMs?: number;
};

export type Connection = {
  /** The last event seq delivered: a reconnect asks for `after=lastSeq`. */
  readonly lastSeq: number;
  readonly state: ConnectionState;
  /** Failed attempts since the socket was last open (for an "offline" indicator). */
  readonly retries: number;
  /** Sends a frame and resolves with its `ack` result; rejects on an `error` frame or a lost socket. */
  send<F extends ClientFrameBody>(frame: F): Promise<AckResult<F>>;
  /** Closes for good: no reconnect. */
  close(): void;
};

/** A random idempotency key (getRandomValues works in insecure contexts too, unlike randomUUID). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `k-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export type { SkillDetail, SkillInfo, SkillInput, Skillset } from "../contract/skills";
export type { ToolInfo, ToolList, ToolSource, Toolset } from "../contract/tools";
