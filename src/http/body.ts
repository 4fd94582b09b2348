import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../contract/errors";
import { MAX_BODY_BYTES } from "../contract/frames";
import type { EdgeContext, EdgeMiddleware } from "./types";

/** docs/API.md §7.2: an early answer first reads and discards up to this much of the body. */
export const DRAIN_BYTES = 8 * 1024 * 1024;
/** A client that stops sending mid-body does not hold the request open longer than this. */
const DRAIN_IDLE_MS = 5_000;

/**
 * Reads and discards what is left of a request body, up to `maxBytes`, so that the client's
 * keep-alive connection can carry its next request (cancelling the stream instead leaves the
 * connection hanging behind wrangler's proxy). Past the cap, or on a stalled or broken body,
 * it gives up: the connection may then close.
 */
export async function drainBody(req: Request, maxBytes = DRAIN_BYTES): Promise<void> {
  const body = req.body;
  if (!body || req.bodyUsed || body.locked) return;
  await drainReader(body.getReader(), maxBytes);
}

async function drainReader(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes = DRAIN_BYTES): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<"stalled">((resolve) => {
    timer = setTimeout(() => resolve("stalled"), DRAIN_IDLE_MS);
  });
  try {
    for (let seen = 0; seen <= maxBytes; ) {
      const chunk = await Promise.race([reader.read(), stalled]);
      if (chunk === "stalled" || chunk.done) break;
      seen += chunk.value.byteLength;
    }
    await reader.cancel().catch(() => {});
  } catch {
    // A broken body: there is no connection left to keep usable.
  } finally {
    clearTimeout(timer);
  }
}

/** The original body under a pass-through: its reader, and the read the pass-through has in flight. */
type Source = { reader: ReadableStreamDefaultReader<Uint8Array>; inFlight: Promise<unknown> | null };
const sources = new WeakMap<Request, Source>();

/**
 * `hono/body-limit` reads a body without Content-Length itself and keeps its reader to
 * itself; handing it a pass-through lets the 413 drain what is left of the original.
 */
function withDrainableBody(req: Request): Request {
  if (!req.body || (req.headers.has("content-length") && !req.headers.has("transfer-encoding"))) return req;
  const source: Source = { reader: req.body.getReader(), inFlight: null };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const read = source.reader.read();
        source.inFlight = read;
        const r = await read;
        source.inFlight = null;
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      },
      cancel: (reason) => source.reader.cancel(reason),
    },
    // Pull only when asked, so that nothing is in flight when the limit stops reading.
    { highWaterMark: 0 },
  );
  const wrapped = new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body,
    duplex: "half",
  } as RequestInit);
  sources.set(wrapped, source);
  return wrapped;
}

/** Drains the original body under a pass-through, after the read it may have in flight. */
async function drainSource(source: Source): Promise<void> {
  await source.inFlight?.catch(() => {});
  await drainReader(source.reader);
}

/** A route whose body may be larger than MAX_BODY_BYTES, and what its 413 says. */
export type BodyLimit = { maxBytes: number; message: string };

function limiter({ maxBytes, message }: BodyLimit) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: async (c) => {
      const source = sources.get(c.req.raw);
      await (source ? drainSource(source) : drainBody(c.req.raw));
      throw new ApiError("payload_too_large", message);
    },
  });
}

/**
 * `hono/body-limit` at 1 MiB (docs/API.md §2), or the route's own limit from `larger` (keyed by
 * exact path, or `<parent>/*` for every path one level under it): from Content-Length before anything is read, else while reading. Its `onError`
 * drains before the 413 is answered. GET and HEAD bodies are discarded here and never parsed
 * (§7.2). A body that cannot be read (a broken chunked stream) is marked, so that the route
 * answers 400 after the checks that come first.
 */
export function bodyLimitEdge(larger: Record<string, BodyLimit> = {}): EdgeMiddleware {
  const standard = limiter({ maxBytes: MAX_BODY_BYTES, message: `body over ${MAX_BODY_BYTES} bytes` });
  const own = new Map(Object.entries(larger).map(([path, l]) => [path, limiter(l)]));
  return async function bodyLimitEdge(c, next) {
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      await drainBody(c.req.raw);
      return next();
    }
    c.req.raw = withDrainableBody(c.req.raw);
    const limit = own.get(c.req.path) ?? own.get(`${c.req.path.slice(0, c.req.path.lastIndexOf("/"))}/*`) ?? standard;
    try {
      // Errors from the routes are answered inside `next`; what reaches here is the limit's own.
      return await limit(c, next);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      c.set("bodyUnreadable", true);
      c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers: c.req.raw.headers });
      return next();
    }
  };
}

/**
 * The request body as JSON, whatever the Content-Type (docs/API.md §2). An empty body is
 * `empty`; anything else must parse (`null` is a value, not an empty body).
 */
export async function readJson(c: EdgeContext, empty: unknown): Promise<unknown> {
  if (c.get("bodyUnreadable")) throw new ApiError("bad_request", "body could not be read");
  let text: string;
  try {
    text = await c.req.text();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError("bad_request", "body could not be read", { cause: err });
  }
  if (text.trim() === "") return empty;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("bad_request", "body is not valid JSON");
  }
}

/** Routes whose body is "—" (docs/API.md §2): empty or `{}`, nothing else. */
export async function readNoBody(c: EdgeContext): Promise<void> {
  const b = await readJson(c, undefined);
  if (b !== undefined && (typeof b !== "object" || b === null || Array.isArray(b) || Object.keys(b).length > 0))
    throw new ApiError("bad_request", "this route takes no body");
}
