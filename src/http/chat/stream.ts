/**
 * The chat stream's transport (docs/API.md#chat-ai-sdk-ui-message-stream): the Worker is a
 * WebSocket client of the session object, on the same socket route programs use, so the stream
 * is fed by the same commit and delta hooks, the same bounded replay and the same in-flight
 * replay as every socket. The object gains no buffer and no per-stream state.
 */
import type { SessionObject } from "../../session";
import type { ChatParts, UIChunk } from "./parts";

/** Times the Worker reconnects a socket the object closed (an eviction, a deploy) before giving up. */
const RECONNECTS = 20;
/** An SSE comment this often keeps proxies from closing a stream while the model thinks. */
const KEEPALIVE_MS = 15_000;

export const UI_STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** The turn as a UI message stream, from the events after `after`, until `fold` says it is done. */
export function streamTurn(
  stub: DurableObjectStub<SessionObject>,
  principal: string,
  after: number,
  fold: ChatParts,
): Response {
  const encoder = new TextEncoder();
  let socket: WebSocket | null = null;
  let ended = false;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const end = () => {
    ended = true;
    clearInterval(keepalive);
    try {
      socket?.close(1000, "done");
    } catch {
      // already closed
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (chunks: UIChunk[]) => {
        for (const chunk of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
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
      send(fold.start());
      keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      const run = async (tries: number): Promise<void> => {
        const ws = await openSocket(stub, principal, tries === 0 ? after : Math.max(after, fold.seen));
        socket = ws;
        ws.addEventListener("message", (m) => {
          if (ended) return;
          const frame = JSON.parse(typeof m.data === "string" ? m.data : new TextDecoder().decode(m.data));
          if (frame.type === "ready" || frame.type === "session") send(fold.session(frame.session));
          else if (frame.type === "event") send(fold.event(frame.event));
          else if (frame.type === "delta") send(fold.delta(frame));
          if (fold.done) {
            controller.enqueue(encoder.encode("data: [DONE]\n\n"));
            close();
          }
        });
        ws.addEventListener("close", () => {
          if (ended) return;
          if (tries + 1 >= RECONNECTS) return close();
          setTimeout(() => void run(tries + 1).catch(close), 100 * (tries + 1));
        });
      };
      void run(0).catch(close);
    },
    // Closing the stream stops nothing: the turn goes on, and the socket closes.
    cancel: end,
  });
  return new Response(body, { headers: UI_STREAM_HEADERS });
}

async function openSocket(stub: DurableObjectStub<SessionObject>, principal: string, after: number) {
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
