/**
 * One MCP server over Streamable HTTP, through the SDK's `Client`. It connects lazily and drops the
 * connection on any transport failure, so nothing depends on an MCP session surviving eviction or
 * a server restart: the next call connects again (docs/design.md#recovery).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { z } from "zod";
import { substituteSecrets } from "../secrets";
import { boundedFetch, TOO_LARGE } from "./bounded-fetch";
import { MCP_LIMITS } from "./limits";

export { MCP_LIMITS } from "./limits";

import { listingTooLarge, toolBytes } from "./bounds";
import type { McpServerConfig } from "./config";
import { NeedsAuthorization } from "./oauth-grants";

export type ListedTool = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: unknown; idempotentHint?: unknown };
};

/**
 * Why a call failed: `timeout` (no answer in time), `transport` (network, HTTP ≥ 400),
 * `protocol` (a JSON-RPC error), `too_large` (an answer over the byte limit), `aborted` (a stop).
 */
export class McpCallError extends Error {
  constructor(
    readonly kind: "timeout" | "transport" | "protocol" | "too_large" | "aborted" | "needs_authorization",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type McpConnectionDeps = {
  fetch: typeof fetch;
  /** A Worker var or secret by name, for `{{secret:NAME}}` in headers. */
  secret: (name: string) => string | undefined;
  /** Bearer tokens for servers with `auth` (absent: such a server needs authorization). */
  tokens?: McpTokenSource;
};

/** The token port a hub is given for one principal (docs/API.md#mcp-servers-behind-oauth). */
export type McpTokenSource = {
  /** The access token to send, refreshed if need be; throws `NeedsAuthorization` when there is none. */
  token(server: McpServerConfig): Promise<string>;
  /** The server refused the token (401): it is forgotten. */
  refused(server: McpServerConfig): Promise<void>;
};

export const IDEMPOTENCY_META = "io.highwater/idempotency-key";

/** A `tools/list` page checked loosely, so that one bad tool is skipped instead of the whole server. */
const ListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

export class McpConnection {
  #client: Promise<Client> | null = null;

  constructor(
    readonly server: McpServerConfig,
    private readonly deps: McpConnectionDeps,
  ) {}

  /** Every tool of the server (all `nextCursor` pages), filtered by its `tools` list, bounded. */
  async listTools(signal?: AbortSignal): Promise<ListedTool[]> {
    const wanted = this.server.tools ? new Set(this.server.tools) : null;
    const tools: ListedTool[] = [];
    let total = 0;
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MCP_LIMITS.listPages) throw new Error(`more than ${MCP_LIMITS.listPages} pages of tools`);
      const result = await this.#request(
        (c) =>
          c.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ListPage, {
            timeout: MCP_LIMITS.listTimeoutMs,
            ...(signal ? { signal } : {}),
          }),
        signal,
      );
      for (const raw of result.tools) {
        const parsed = ToolSchema.safeParse(raw);
        if (!parsed.success) {
          const name = (raw as { name?: unknown } | null)?.name;
          console.warn(`highwater: MCP server ${this.server.name}: tool ${String(name)} skipped (not a valid tool)`);
          continue;
        }
        const t = parsed.data;
        if (wanted && !wanted.has(t.name)) continue;
        const size = toolBytes(t);
        if (size.tooLarge) {
          console.warn(`highwater: MCP server ${this.server.name}: tool ${t.name} skipped (${size.tooLarge})`);
          continue;
        }
        total += size.bytes;
        const tooMuch = listingTooLarge(total);
        if (tooMuch) throw new Error(tooMuch);
        tools.push({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.annotations ? { annotations: t.annotations } : {}),
        });
        if (tools.length > MCP_LIMITS.toolsPerServer)
          throw new Error(`more than ${MCP_LIMITS.toolsPerServer} tools (use its "tools" list)`);
      }
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
  }

  /** One `tools/call` with the idempotency key in `_meta`, answered within the server's `timeoutMs`. */
  async callTool(name: string, args: unknown, idempotencyKey: string, signal: AbortSignal) {
    return this.#request(
      (c) =>
        c.request(
          {
            method: "tools/call",
            params: {
              name,
              arguments: (args ?? {}) as Record<string, unknown>,
              _meta: { [IDEMPOTENCY_META]: idempotencyKey },
            },
          },
          CallToolResultSchema,
          { signal, timeout: this.server.timeoutMs },
        ),
      signal,
    );
  }

  close(): void {
    const pending = this.#client;
    this.#client = null;
    void pending?.then((c) => c.close()).catch(() => {});
  }

  async #request<T>(fn: (c: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      const client = await this.#connect();
      try {
        return await fn(client);
      } catch (err) {
        // 404 on a request with a session: the server forgot it (restarted) and processed nothing,
        // so connecting again and sending once more is safe for any effect. Some servers answer
        // 400 "no valid session" instead (server-everything); a 400 processed nothing either.
        const lost = err instanceof StreamableHTTPError && (err.code === 404 || err.code === 400);
        if (!lost || !sessionOf(client)) throw err;
        this.close();
        return await fn(await this.#connect());
      }
    } catch (err) {
      const failure = classify(err, signal);
      // Anything but a JSON-RPC error may have left the connection unusable: connect again next time.
      if (failure.kind !== "protocol") this.close();
      throw failure;
    }
  }

  #connect(): Promise<Client> {
    if (!this.#client) {
      const attempt = this.#open();
      this.#client = attempt;
      attempt.catch(() => {
        if (this.#client === attempt) this.#client = null;
      });
    }
    return this.#client;
  }

  async #open(): Promise<Client> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.server.headers)) {
      const sub = substituteSecrets(v, this.deps.secret);
      if (!sub.ok) throw new McpCallError("transport", `header ${k}: secret ${sub.name} is not set`);
      headers[k] = sub.text;
    }
    const client = new Client(
      { name: "highwater", version: "1" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    const transport = new StreamableHTTPClientTransport(new URL(this.server.url), {
      fetch: this.#withToken(boundedFetch(this.deps, new URL(this.server.url).origin)),
      requestInit: { headers },
    });
    await client.connect(transport, { timeout: MCP_LIMITS.listTimeoutMs });
    return client;
  }

  /** For a server with `auth`: each request carries the principal's current token; a 401 forgets it. */
  #withToken(inner: typeof fetch): typeof fetch {
    const server = this.server;
    if (!server.auth) return inner;
    const tokens = this.deps.tokens;
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!tokens) throw new NeedsAuthorization(server.name);
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${await tokens.token(server)}`);
      const res = await inner(input, { ...init, headers });
      if (res.status === 401) {
        await res.body?.cancel();
        await tokens.refused(server);
        throw new NeedsAuthorization(server.name);
      }
      return res;
    }) as typeof fetch;
  }
}

function sessionOf(client: Client): string | undefined {
  return (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
}

function classify(err: unknown, signal?: AbortSignal): McpCallError {
  if (err instanceof McpCallError) return err;
  if (err instanceof NeedsAuthorization || (err as { cause?: unknown })?.cause instanceof NeedsAuthorization)
    return new McpCallError("needs_authorization", (err as Error).message);
  const message = err instanceof Error ? err.message : String(err);
  if (signal?.aborted) return new McpCallError("aborted", "the call was aborted", { cause: err });
  // The SDK passes the stream's error on as it is, or wrapped in its own message.
  if (message.includes(TOO_LARGE)) return new McpCallError("too_large", message, { cause: err });
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return new McpCallError("timeout", message, { cause: err });
    if (err.code === ErrorCode.ConnectionClosed) return new McpCallError("transport", message, { cause: err });
    return new McpCallError("protocol", message, { cause: err });
  }
  return new McpCallError("transport", message, { cause: err });
}
