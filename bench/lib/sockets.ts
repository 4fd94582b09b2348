/**
 * Socket clients for the bench on the product's typed client (src/client). Each client's
 * WebSocket records every `event` frame as the server sent it, with the moment it arrived,
 * before the client's own cursor drops a replayed event: so a duplicate or a gap the server
 * sends still shows in what a check reads (docs/API.md#websocket).
 */
import WebSocket from "ws";
import { type Connection, HighwaterClient, type WebSocketConstructor } from "../../src/client";
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

/** One WebSocket client of `sessionId` from `after` (the server replays what is past it). */
export function watch(baseUrl: string, sessionId: string, after = 0): Watcher {
  const events: Received[] = [];
  class RecordingWebSocket extends WebSocket {
    constructor(url: string, options?: { headers?: Record<string, string> }) {
      super(url, options);
      this.on("message", (data) => {
        const recvAt = Date.now();
        const frame = JSON.parse(data.toString()) as { type: string; event?: { seq: number; digest: string; at: string } };
        if (frame.type === "event" && frame.event) {
          const { seq, digest, at } = frame.event;
          events.push({ seq, digest, at, recvAt });
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
