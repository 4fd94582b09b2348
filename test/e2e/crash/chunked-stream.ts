/**
 * A re-chunking proxy in front of the fake model: it forwards each request to fake-openai
 * and re-emits the SSE answer in token-sized frames (a few characters of text or tool
 * arguments each, with a small gap between frames), so a reply streams in tens of frames
 * the way a real provider's does. Crash tests need that: F2 ("mid-stream") only means
 * something when most of the answer is still on the wire when the worker dies.
 *
 * The fake itself splits text into 4 pieces and arguments into 3; this proxy is the only
 * place that changes the framing. It records, per request, how many frames it sent and
 * whether the client went away before the end.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type StreamRecord = {
  at: number;
  /** Frames written to the worker (the `[DONE]` frame counts). */
  framesSent: number;
  /** Frames the whole answer has, once the upstream stream ended. */
  framesTotal: number | null;
  /** The worker closed the connection before the last frame. */
  cut: boolean;
};

export type ChunkedStream = {
  /** Base URL ending in `/v1`: pass it as `MODEL_BASE_URL`. */
  url: string;
  streams: StreamRecord[];
  close(): Promise<void>;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type ChunkFrame = {
  choices?: { delta?: { content?: string; tool_calls?: { id?: string; function?: { arguments?: string } }[] } }[];
};

/** Splits one upstream SSE frame into several with at most `piece` characters of text or arguments each. */
function splitFrame(data: string, piece: number): string[] {
  if (data === "[DONE]") return [data];
  let frame: ChunkFrame;
  try {
    frame = JSON.parse(data) as ChunkFrame;
  } catch {
    return [data];
  }
  const delta = frame.choices?.[0]?.delta;
  const content = delta?.content;
  const call = delta?.tool_calls?.[0];
  const args = call?.function?.arguments;
  const pieces = (s: string) => {
    const cps = Array.from(s);
    const out: string[] = [];
    for (let i = 0; i < cps.length; i += piece) out.push(cps.slice(i, i + piece).join(""));
    return out;
  };
  if (delta && typeof content === "string" && content.length > piece) {
    return pieces(content).map((p) =>
      JSON.stringify({ ...frame, choices: [{ ...frame.choices![0], delta: { ...delta, content: p } }] }),
    );
  }
  // Only argument continuations (no id) are split: the frame opening a call stays whole.
  if (call && call.id === undefined && typeof args === "string" && args.length > piece) {
    return pieces(args).map((p) =>
      JSON.stringify({
        ...frame,
        choices: [
          {
            ...frame.choices![0],
            delta: { ...delta, tool_calls: [{ ...call, function: { ...call.function, arguments: p } }] },
          },
        ],
      }),
    );
  }
  return [data];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Start the proxy on 127.0.0.1 in front of `upstream` (fake-openai's `url`). */
export async function startChunkedStream(
  upstream: string,
  { piece = 5, frameDelayMs = 6 }: { piece?: number; frameDelayMs?: number } = {},
): Promise<ChunkedStream> {
  const streams: StreamRecord[] = [];
  const base = upstream.replace(/\/v1\/?$/, "");
  const server = createServer(async (req, res) => {
    const body = await readBody(req).catch(() => Buffer.alloc(0));
    const rec: StreamRecord = { at: Date.now(), framesSent: 0, framesTotal: null, cut: false };
    const upstreamAbort = new AbortController();
    let finished = false;
    res.on("close", () => {
      if (!finished) {
        rec.cut = true;
        upstreamAbort.abort();
      }
    });
    let answer: Response;
    try {
      answer = await fetch(`${base}${req.url ?? "/"}`, {
        method: req.method,
        headers: {
          "content-type": req.headers["content-type"] ?? "application/json",
          authorization: req.headers.authorization ?? "",
        },
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
        signal: upstreamAbort.signal,
      });
    } catch {
      res.destroy();
      return;
    }
    const type = answer.headers.get("content-type") ?? "";
    if (!type.startsWith("text/event-stream") || !answer.body) {
      const text = await answer.text().catch(() => "");
      const headers: Record<string, string> = { "content-type": type || "application/json" };
      const retryAfter = answer.headers.get("retry-after");
      if (retryAfter) headers["retry-after"] = retryAfter;
      finished = true;
      res.writeHead(answer.status, headers);
      res.end(text);
      return;
    }
    streams.push(rec);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    const decoder = new TextDecoder();
    let buffered = "";
    let total = 0;
    try {
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = event.startsWith("data: ") ? event.slice(6) : event;
          for (const f of splitFrame(data, piece)) {
            total++;
            if (res.destroyed) return;
            res.write(`data: ${f}\n\n`);
            rec.framesSent++;
            if (frameDelayMs > 0) await sleep(frameDelayMs);
          }
        }
      }
    } catch {
      // The worker went away (or upstream broke): the record says how far it got.
      return;
    }
    rec.framesTotal = total;
    finished = true;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
