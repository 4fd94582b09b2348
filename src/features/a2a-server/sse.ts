/**
 * A stream of JSON-RPC responses as Server-Sent Events (docs/API.md#a2a-server): one `data:` frame
 * per response, an `event: error` frame if the stream fails midway, and a comment every
 * `KEEPALIVE_MS` while nothing happens (a long model call), so no proxy takes the connection for
 * idle. Pull-based: a client that goes away stops the reading of the log (`cancel`).
 */

export const KEEPALIVE_MS = 15_000;

type ErrorOf = (err: unknown) => { code: number; message: string };

export function sseResponse(
  first: unknown,
  rest: AsyncIterator<unknown>,
  id: string | number | null,
  errorOf: ErrorOf,
  keepAliveMs = KEEPALIVE_MS,
): Response {
  const encoder = new TextEncoder();
  const frame = (data: unknown, event?: string) =>
    encoder.encode(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  let sentFirst = false;
  // The read under way survives a keep-alive: the next pull waits on the same one.
  let pending: Promise<IteratorResult<unknown>> | null = null;
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sentFirst) {
          sentFirst = true;
          controller.enqueue(frame(first));
          return;
        }
        pending ??= rest.next();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const idle = new Promise<"idle">((r) => {
          timer = setTimeout(() => r("idle"), keepAliveMs);
        });
        try {
          const next = await Promise.race([pending, idle]);
          if (next === "idle") {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            return;
          }
          pending = null;
          if (next.done) controller.close();
          else controller.enqueue(frame(next.value));
        } catch (err) {
          controller.enqueue(frame({ jsonrpc: "2.0", id, error: errorOf(err) }, "error"));
          controller.close();
        } finally {
          clearTimeout(timer);
        }
      },
      async cancel() {
        // The client went away: the stream stops reading the log; the task itself goes on.
        await rest.return?.();
      },
    }),
    { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } },
  );
}
