/**
 * The fetch an MCP connection uses (docs/API.md#mcp-servers): the server's own origin only, no
 * redirects, answers cut at the byte limit, and a request's SSE answer that fails ended with an
 * error for that request, so the call fails at once instead of at its timeout.
 */
import { MCP_LIMITS } from "./limits";

/** What a bounded fetch needs: the Worker's own fetch. */
type FetchDeps = { fetch: typeof fetch };

/**
 * Fetch for a server: its configured origin only (configuring it is what allows it), no redirects
 * followed, answers cut at the byte limit. A request's answer over SSE that fails (over the limit, cut, or ended without the
 * answer) is answered at once through the stream itself (`sseAnswer`): the SDK would only report
 * the stream's error and leave the call waiting for its timeout.
 */
export function boundedFetch(deps: FetchDeps, origin: string): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) throw new Error("a request to another origin than the server's configured URL");
    const res = await deps.fetch(input, { ...init, redirect: "manual" });
    if (!res.body) return res;
    const id = requestIdOf(init?.body);
    const sse = res.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";
    const body =
      res.ok && sse && id !== undefined ? sseAnswer(res.body, id) : counted(res.body, MCP_LIMITS.responseBytes);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}

/** Bytes of an OAuth metadata or token answer. */
const OAUTH_RESPONSE_BYTES = 256 * 1024;

/**
 * Fetch for OAuth discovery, registration and tokens (docs/API.md#mcp-servers-behind-oauth): the
 * origins in `allowed` only (the MCP server's, then those its discovery names, added as they are
 * named), no redirects, answers cut at 256 KiB.
 */
export function oauthFetch(deps: FetchDeps, allowed: ReadonlySet<string>): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!allowed.has(url.origin)) throw new Error("a request to an origin discovery did not name");
    const res = await deps.fetch(input, { ...init, redirect: "manual" });
    if (!res.body) return res;
    return new Response(counted(res.body, OAUTH_RESPONSE_BYTES), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  }) as typeof fetch;
}

export const TOO_LARGE = "the server's answer exceeds";

/** The JSON-RPC error code of a request whose answer stream failed (the v1 SDK's `ConnectionClosed`). */
export const CONNECTION_CLOSED = -32000;

/** The body cut at `limit` bytes: past it, the stream fails (a JSON answer's parse then fails at once). */
function counted(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > limit) ctl.error(new Error(`${TOO_LARGE} ${limit} bytes`));
        else ctl.enqueue(chunk);
      },
    }),
  );
}

type JsonRpcId = string | number;

/** The id of a JSON-RPC request the SDK POSTs (a notification or a response has none). */
function requestIdOf(body: unknown): JsonRpcId | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const m = JSON.parse(body) as { id?: unknown; method?: unknown };
    return typeof m?.method === "string" && (typeof m.id === "string" || typeof m.id === "number") ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A request's SSE answer, passed on as it comes (at most the byte limit). When the stream goes
 * over the limit, is cut, or ends, it ends with one more event: a JSON-RPC error for the request
 * (`CONNECTION_CLOSED`, which the SDK rejects the call with). After the real answer that event
 * names a finished request and the SDK ignores it. A stream that carried an event id is
 * resumable: the SDK resumes it itself (within the call's timeout), so only the byte limit
 * ends it here.
 */
function sseAnswer(body: ReadableStream<Uint8Array>, id: JsonRpcId): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const ids = new EventIdScan();
  let seen = 0;
  const fail = (ctl: ReadableStreamDefaultController<Uint8Array>, message: string) => {
    const error = { jsonrpc: "2.0", id, error: { code: CONNECTION_CLOSED, message } };
    ctl.enqueue(new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(error)}\n\n`));
    ctl.close();
    reader.cancel().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (ids.found) throw err;
        return fail(ctl, `the server's answer was cut off (${String(err)}); the call may have taken effect`);
      }
      if (chunk.done) {
        if (ids.found) return ctl.close();
        return fail(ctl, "the server's answer ended without a result; the call may have taken effect");
      }
      seen += chunk.value.byteLength;
      if (seen > MCP_LIMITS.responseBytes) return fail(ctl, `${TOO_LARGE} ${MCP_LIMITS.responseBytes} bytes`);
      ids.push(chunk.value);
      ctl.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Whether an SSE stream has carried a non-empty event id (an `id:` line), read across chunks. */
class EventIdScan {
  found = false;
  #decoder = new TextDecoder();
  /** The start of the line in progress: enough to recognise `id: x`. */
  #line = "";

  push(bytes: Uint8Array): void {
    if (this.found) return;
    const lines = (this.#line + this.#decoder.decode(bytes, { stream: true })).split(/\r\n|\r|\n/);
    this.#line = lines.pop()!.slice(0, 8);
    this.found = lines.some((l) => /^id: ?\S/.test(l));
  }
}
