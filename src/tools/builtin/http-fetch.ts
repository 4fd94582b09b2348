import { z } from "zod";
import { isUrlAllowed } from "../hosts";
import { mcpHostsDeniedToFetch } from "../mcp/config";
import { secretAllowedFor, secretRefsIn, substituteSecrets } from "../secrets";
import type { ToolContext, ToolDefinition, ToolResult } from "../types";
import { toolError, utf8BoundaryBefore } from "./text";

/** docs/API.md §5: response bodies are capped at 10 MiB; calls time out after 60 s. */
export const HTTP_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const HTTP_TIMEOUT_MS = 60_000;
export const HTTP_MAX_REDIRECTS = 5;

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers the fetch layer owns; letting the model set them could misroute the request. */
const FORBIDDEN_REQUEST_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding"]);
/** Credentials are not carried to another origin on a redirect (what browsers do). */
const CROSS_ORIGIN_DROPPED = new Set(["authorization", "cookie", "proxy-authorization"]);

const HttpFetchInput = z
  .strictObject({
    url: z.string().min(1).max(8192).describe("Absolute http(s) URL; its host must be on the allowlist."),
    method: z
      .string()
      .regex(/^[A-Za-z]{1,16}$/)
      .default("GET")
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS))
      .describe(`HTTP method, one of ${HTTP_METHODS.join(", ")} (default GET).`),
    headers: z
      .record(
        z
          .string()
          .max(256)
          .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "not a valid header name"),
        z
          .string()
          .max(8192)
          .regex(/^[^\r\n\0]*$/, "header values cannot contain CR, LF or NUL"),
      )
      .refine((h) => Object.keys(h).length <= 64, { message: "at most 64 headers" })
      .optional()
      .describe(
        "Request headers. A value may hold {{secret:NAME}} for a secret the deployment allows for this URL's host; it is filled in when sent and never shown.",
      ),
    body: z
      .string()
      .max(1024 * 1024)
      .optional()
      .describe("Request body (text); not allowed with GET or HEAD."),
  })
  .superRefine((args, ctx) => {
    if (args.body !== undefined && (args.method === "GET" || args.method === "HEAD"))
      ctx.addIssue({ code: "custom", path: ["body"], message: `a ${args.method} request cannot have a body` });
    for (const name of Object.keys(args.headers ?? {}))
      if (FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase()))
        ctx.addIssue({ code: "custom", path: ["headers", name], message: `header ${name} cannot be set` });
  });

export type HttpFetchArgs = z.infer<typeof HttpFetchInput>;

export type HttpFetchOptions = { maxBodyBytes?: number; timeoutMs?: number; maxRedirects?: number };

/** http_fetch with injectable limits (tests use small ones); `httpFetchTool` has the contract's. */
export function makeHttpFetchTool(options: HttpFetchOptions = {}): ToolDefinition<HttpFetchArgs> {
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? HTTP_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? HTTP_MAX_REDIRECTS;
  return {
    name: "http_fetch",
    description: `Make an HTTP request to an allowed host. Redirects are followed (at most ${maxRedirects}), each hop checked against the allowlist. Any HTTP answer returns { status, headers, body, truncated, url }; the body is text, cut at ${maxBodyBytes} bytes.`,
    input: HttpFetchInput,
    declaredEffect: "by-arguments",
    effect: (args) => (args.method === "GET" || args.method === "HEAD" ? "read" : "write"),
    async run(args, ctx) {
      const controller = new AbortController();
      let timedOut = false;
      let rejectAborted: (reason: unknown) => void = () => {};
      // Settles when the call is stopped or times out, even if the fetch itself ignores its signal.
      const aborted = new Promise<never>((_, reject) => {
        rejectAborted = reject;
      });
      const stop = (reason: unknown) => {
        controller.abort(reason);
        rejectAborted(reason);
      };
      const onStop = () => stop(ctx.signal.reason);
      const timer = setTimeout(() => {
        timedOut = true;
        stop(new Error("timeout"));
      }, timeoutMs);
      if (ctx.signal.aborted) onStop();
      else ctx.signal.addEventListener("abort", onStop, { once: true });
      aborted.catch(() => {});
      try {
        return await Promise.race([
          fetchFollowingRedirects(args, ctx, controller.signal, { maxBodyBytes, maxRedirects }),
          aborted,
        ]);
      } catch (err) {
        if (timedOut) return toolError("timeout", `no complete answer within ${timeoutMs / 1000} s`);
        if (ctx.signal.aborted) return toolError("aborted", "the call was stopped");
        return toolError("network_error", err instanceof Error ? err.message : String(err));
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onStop);
        if (!controller.signal.aborted) controller.abort(new Error("done"));
      }
    },
  };
}

export const httpFetchTool = makeHttpFetchTool();

/** Methods that change nothing: they carry no `Idempotency-Key` (docs/API.md#tools). */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

async function fetchFollowingRedirects(
  args: HttpFetchArgs,
  ctx: ToolContext,
  signal: AbortSignal,
  limits: { maxBodyBytes: number; maxRedirects: number },
): Promise<ToolResult> {
  const misplaced = [args.url, args.body ?? "", ...Object.keys(args.headers ?? {})].flatMap(secretRefsIn)[0];
  if (misplaced !== undefined)
    return toolError("secret_not_allowed", `{{secret:${misplaced}}} may only be used in a header value`);
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    return toolError("bad_url", `not an absolute URL: ${args.url}`);
  }
  let method: string = args.method;
  let body: string | undefined = args.body;
  const headers = new Headers(args.headers ?? {});
  if (!SAFE_METHODS.has(method) && !headers.has("idempotency-key")) headers.set("idempotency-key", ctx.idempotencyKey);
  const redirects: string[] = [];
  // An MCP server is reached through its tools (their filter, effects and approval rules), not here.
  const mcpHosts = mcpHostsDeniedToFetch(ctx.env ?? {});
  // Likewise a host a feature reaches through its own tools (an A2A agent's).
  const featureHosts = ctx.httpDeniedHosts ?? [];
  for (let hop = 0; ; hop++) {
    const where = hop === 0 ? "" : ` (redirect ${hop} from ${redirects[hop - 1] ?? args.url})`;
    if (!isUrlAllowed(url, ctx.httpAllowedHosts))
      return toolError("host_not_allowed", `${url.origin} is not allowed by HTTP_TOOL_ALLOWED_HOSTS${where}`, {
        url: url.href,
      });
    if (isUrlAllowed(url, mcpHosts))
      return toolError(
        "host_not_allowed",
        `${url.origin} is an MCP server's host: use its tools (HTTP_TOOL_MCP_HOSTS=allow lets http_fetch reach it)${where}`,
        { url: url.href },
      );
    if (isUrlAllowed(url, featureHosts))
      return toolError("host_not_allowed", `${url.origin} is reached through its own tools, not http_fetch${where}`, {
        url: url.href,
      });
    const sent = withSecrets(headers, url, ctx);
    if (!sent.ok) {
      return toolError("secret_not_allowed", `{{secret:${sent.name}}} may not be sent to ${url.host}${where}`, {
        url: url.href,
      });
    }
    // Redirects are followed by hand so that every hop is checked before anything is sent to it.
    const response = await ctx.fetch(url.href, { method, headers: sent.headers, body, redirect: "manual", signal });
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null)
      return { status: "ok", response: await readAnswer(response, url, limits.maxBodyBytes, signal) };
    await response.body?.cancel().catch(() => {});
    if (hop >= limits.maxRedirects)
      return toolError("too_many_redirects", `more than ${limits.maxRedirects} redirects`, { url: url.href });
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return toolError("bad_redirect", `unusable Location header: ${location}`, { url: url.href });
    }
    // 303, and 301/302 after a POST, continue as GET without a body (as browsers and fetch do).
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      if (method !== "HEAD") method = "GET";
      body = undefined;
      headers.delete("content-type");
    }
    if (next.origin !== url.origin) for (const name of CROSS_ORIGIN_DROPPED) headers.delete(name);
    redirects.push(url.href);
    url = next;
  }
}

/**
 * The headers to send to `url`, each `{{secret:NAME}}` replaced by its value: only names that
 * `HTTP_TOOL_SECRETS` binds to a pattern matching this URL's host, and that are set.
 */
function withSecrets(
  headers: Headers,
  url: URL,
  ctx: ToolContext,
): { ok: true; headers: Headers } | { ok: false; name: string } {
  const hosts = ctx.httpSecretHosts ?? {};
  const lookup = (name: string) => (secretAllowedFor(hosts, name, url) ? ctx.secret?.(name) : undefined);
  const out = new Headers();
  for (const [name, value] of headers) {
    const replaced = substituteSecrets(value, lookup);
    if (!replaced.ok) return replaced;
    out.set(name, replaced.text);
  }
  return { ok: true, headers: out };
}

async function readAnswer(response: Response, url: URL, maxBodyBytes: number, signal: AbortSignal) {
  const { text, truncated } = await readCappedText(response, maxBodyBytes, signal);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: text, truncated, url: url.href };
}

/**
 * Reads at most `cap` bytes of the body as text, cut back to a UTF-8 boundary when it had to stop
 * early. The bytes go into one buffer as they arrive, sized from Content-Length when the server
 * sends it (else grown by doubling), and are decoded once (docs/design.md §6: a 10 MiB answer is never
 * held as its network chunks, a joined copy and its text at once).
 */
async function readCappedText(response: Response, cap: number, signal: AbortSignal) {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const declared = Number(response.headers.get("content-length"));
  // A few bytes past the cap let the cut see whether it splits a character.
  const limit = cap + 4;
  let buf = new Uint8Array(Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, limit) : 64 * 1024);
  let size = 0;
  let truncated = false;
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      const { done, value } = await reader.read();
      if (done) break;
      const keep = Math.min(value.byteLength, limit - size);
      if (size + keep > buf.byteLength) {
        const grown = new Uint8Array(Math.min(limit, Math.max(size + keep, buf.byteLength * 2)));
        grown.set(buf.subarray(0, size));
        buf = grown;
      }
      buf.set(keep === value.byteLength ? value : value.subarray(0, keep), size);
      size += keep;
      if (size > cap) {
        truncated = true;
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
  const bytes = buf.subarray(0, size);
  return {
    text: new TextDecoder().decode(truncated ? bytes.subarray(0, utf8BoundaryBefore(bytes, cap)) : bytes),
    truncated,
  };
}
