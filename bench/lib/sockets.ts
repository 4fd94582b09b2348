/**
 * Socket clients for the bench on the product's typed client (src/client). Each client's
 * WebSocket records every `event` frame as the server sent it, with the moment it arrived,
 * before the client's own cursor drops a replayed event: so a duplicate or a gap the server
 * sends still shows in what a check reads (docs/API.md#live-updates-over-a-websocket).
 */
import WebSocket from "ws";
import { type Connection, type Event, HighwaterClient, type WebSocketConstructor } from "../../src/client";
import { sleep, TOKEN } from "./bench";

export type Received = { seq: number; digest: string; at: string; recvAt: number };

export type Watcher = {
  /** Every event frame this client's sockets received, in arrival order. */
  events: Received[];
  /** Resolves at the connection's first `ready` frame. */
  ready: Promise<void>;
  connection: Connection;
};

/** The typed client for one Worker, authenticated with the bench's token. */
export function clientFor(baseUrl: string): HighwaterClient {
  return new HighwaterClient({ baseUrl, token: TOKEN, WebSocket: WebSocket as unknown as WebSocketConstructor });
}

export type WatchOptions = {
  /** Deliver events with `seq > after` (the server replays what is past it). */
  after?: number;
  /**
   * Ask for permessage-deflate (ws's default). Off where a latency is compared with another
   * channel: Node's zlib inflates on its thread pool, which would delay the socket's frames.
   */
  deflate?: boolean;
  /** Every event as it arrived, `performance.now()` at arrival. */
  onEvent?: (event: Event, at: number) => void;
};

/** One WebSocket client of `sessionId`. */
export function watch(baseUrl: string, sessionId: string, options: WatchOptions = {}): Watcher {
  const events: Received[] = [];
  const { after = 0, deflate = true, onEvent } = options;
  class RecordingWebSocket extends WebSocket {
    constructor(url: string, init?: { headers?: Record<string, string> }) {
      super(url, { ...init, perMessageDeflate: deflate });
      this.on("message", (data) => {
        const now = performance.now();
        const recvAt = Date.now();
        const frame = JSON.parse(data.toString()) as { type: string; event?: Event };
        if (frame.type === "event" && frame.event) {
          const { seq, digest, at } = frame.event;
          events.push({ seq, digest, at, recvAt });
          onEvent?.(frame.event, now);
        }
      });
    }
  }
  const client = new HighwaterClient({
    baseUrl,
    token: TOKEN,
    WebSocket: RecordingWebSocket as unknown as WebSocketConstructor,
  });
  let markReady: () => void = () => {};
  let fail: (e: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    fail = reject;
  });
  const connection = client.connect(sessionId, {
    after,
    catchUp: "socket",
    onFrame: (f) => {
      if (f.type === "ready") markReady();
    },
    onFatal: fail,
  });
  return { events, ready, connection };
}

/** Waits until the session's turn is over; its high-water mark then. */
export async function turnEnd(client: HighwaterClient, id: string, polls = 600): Promise<number> {
  for (let i = 0; ; i++) {
    const s = await client.getSession(id);
    if (!s.openTurn) return s.highWater;
    if (i > polls) throw new Error(`session ${id} did not finish its turn`);
    await sleep(100);
  }
}

/** True when `got` is the log's events 1..highWater, each once, in order, with the log's digests. */
export function exactlyTheLog(got: Received[], log: { seq: number; digest: string }[], highWater: number): boolean {
  return got.length === highWater && got.every((e, i) => e.seq === i + 1 && e.digest === log[i]?.digest);
}
