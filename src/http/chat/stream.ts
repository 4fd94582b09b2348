/**
 * The chat stream's transport (docs/API.md#chat-ai-sdk-ui-message-stream), with backpressure:
 * while behind the log it reads one page of events (as the model saw them) each time the client
 * has taken everything sent so far; at the head it becomes a WebSocket client of the session
 * object, on the same socket route programs use, so live output comes from the same commit and
 * delta hooks and the same in-flight replay as every socket. A client that falls behind while
 * live has its socket closed, and reads on from the log by pages when it pulls again. The object
 * gains no buffer and no per-stream state.
 */
import { type Result, unwrap } from "../../contract";
import type { SessionObject } from "../../session";
import type { Caller } from "../../session/admission";
import type { ChatEventsPage } from "../../session/chat-reads";
import type { ChatParts, UIChunk } from "./parts";

/** Times the Worker reconnects a socket the object closed (an eviction, a deploy) before giving up. */
const RECONNECTS = 20;
/** An SSE comment this often keeps proxies from closing a stream while the model thinks. */
const KEEPALIVE_MS = 15_000;
/** Bytes sent but not yet taken by the client past which a live stream goes back to pages. */
export const LIVE_SLACK_BYTES = 256 * 1024;

export const UI_STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

type ChatStub = Pick<DurableObjectStub<SessionObject>, "fetch" | "chatEvents">;

/** The turn as a UI message stream, from the events after `after`, until `fold` says it is done. */
export function streamTurn(stub: ChatStub, caller: Caller, after: number, fold: ChatParts): Response {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let socket: WebSocket | null = null;
  let ended = false;
  let reconnects = 0;
  let pumping: Promise<void> | null = null;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const cursor = () => Math.max(after, fold.seen);
  const send = (chunks: UIChunk[]) => {
    for (const chunk of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
  };
  const drop = () => {
    const ws = socket;
    socket = null;
    try {
      ws?.close(1000, "done");
    } catch {
      // already closed
    }
  };
  const end = () => {
    ended = true;
    clearInterval(keepalive);
    drop();
  };
  const close = () => {
    if (ended) return;
    end();
    try {
      controller.close();
    } catch {
      // the client went away
    }
  };
  /** True (and the stream closed) once the fold has finished the answer. */
  const finished = () => {
    if (!fold.done) return false;
    controller.enqueue(encoder.encode("data: [DONE]\n\n"));
    close();
    return true;
  };

  const live = async () => {
    const ws = await openSocket(stub, caller.principal, cursor());
    if (ended) return void ws.close(1000, "done");
    socket = ws;
    ws.addEventListener("message", (m) => {
      if (ended || socket !== ws) return;
      const frame = JSON.parse(typeof m.data === "string" ? m.data : new TextDecoder().decode(m.data));
      if (frame.type === "ready" || frame.type === "session") send(fold.session(frame.session));
      else if (frame.type === "event") send(fold.event(frame.event));
      else if (frame.type === "delta") send(fold.delta(frame));
      if (finished()) return;
      // The client is behind: stop the socket; its next pull reads on from the log.
      if ((controller.desiredSize ?? 0) < -LIVE_SLACK_BYTES) drop();
    });
    ws.addEventListener("close", () => {
      if (ended || socket !== ws) return;
      socket = null;
      if (++reconnects >= RECONNECTS) return close();
      setTimeout(() => void pump(), 100 * reconnects);
    });
  };

  /** One page of the log while behind it; at its head, the socket. Never two at once. */
  const step = async () => {
    if (ended || socket) return;
    const page = unwrap((await stub.chatEvents(caller, cursor(), null)) as Result<ChatEventsPage>);
    for (const e of page.events) send(fold.event(e));
    if (!finished() && page.atHead) await live();
  };
  const pump = (): Promise<void> => {
    pumping ??= step()
      .catch(close)
      .finally(() => {
        pumping = null;
      });
    return pumping;
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        send(fold.start());
        keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      },
      // Called only when the client has taken everything sent (high-water mark 0).
      pull: pump,
      // Closing the stream stops nothing: the turn goes on, and the socket closes.
      cancel: end,
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers: UI_STREAM_HEADERS });
}

async function openSocket(stub: ChatStub, principal: string, after: number) {
  const res = await stub.fetch(
    new Request(`https://session/ws?after=${after}`, {
      headers: { upgrade: "websocket", "x-hw-principal": principal },
    }),
  );
  const ws = res.webSocket;
  if (!ws) throw new Error(`the session refused the socket: ${res.status}`);
  ws.accept();
  return ws;
}
