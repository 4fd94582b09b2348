/**
 * One MCP server over Streamable HTTP, through the official 2.x client (docs/API.md#mcp-servers).
 * It connects lazily with version negotiation: `server/discover` first, so a server that speaks
 * 2026-07-28 is called statelessly in that revision, and a server that does not gets the 2025-11-25
 * `initialize` handshake. It drops the connection on any transport failure, so nothing depends on
 * an MCP session surviving eviction or a server restart: the next call connects again
 * (docs/design.md#recovery).
 */
import {
  Client,
  type ElicitRequest,
  type ElicitResult,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { substituteSecrets } from "../secrets";
import { boundedFetch } from "./bounded-fetch";
import { classify, McpCallError } from "./call-error";
import { MCP_LIMITS } from "./limits";

export { McpCallError } from "./call-error";
export { MCP_LIMITS } from "./limits";

import { listingTooLarge, toolBytes } from "./bounds";
import type { McpServerConfig } from "./config";
import { NeedsAuthorization } from "./oauth-grants";
import { type InputRound, inputRoundOf, type McpAnswer, type McpQuestion, questionOf } from "./questions";
import { createdTaskOf, type McpTask, serverRunsToolTasks, taskSupportOf } from "./tasks";
import { AnyResult, ListPage, ToolShape } from "./wire";

export type ListedTool = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: unknown; idempotentHint?: unknown };
  /** The tool runs as a task (its `execution.taskSupport`, on a server with task support). */
  taskSupport?: "optional" | "required";
};

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

/** The protocol revisions the client speaks (docs/API.md#mcp-protocol-versions). */
export const MODERN_PROTOCOL = "2026-07-28";

/**
 * A question a server asks during a call over the open stream (2025-11-25), answered by the
 * caller (a call made without `ask` answers every question `cancel`).
 */
export type AskInput = (question: McpQuestion) => Promise<McpAnswer>;

/**
 * What one `tools/call` came back with: a result, (2026-07-28) a round of questions to answer
 * first, or (a task-augmented call) the task it started.
 */
export type CallOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | InputRound
  | { kind: "task"; task: McpTask };

export type CallOptions = {
  /** The answers of the last round of questions and the server's state, echoed back (2026-07-28). */
  resume?: { inputResponses: Record<string, unknown>; requestState?: string };
  /** Asks a question put over the open stream (2025-11-25); absent: such a question is cancelled. */
  ask?: AskInput;
  /** Call task-augmented (docs/API.md#mcp-tasks): the server may answer with a task. */
  task?: boolean;
};

export class McpConnection {
  #client: Promise<Client> | null = null;
  /** The question handler of the call under way (one at a time per connection's stream). */
  #ask: AskInput | null = null;

  constructor(
    readonly server: McpServerConfig,
    private readonly deps: McpConnectionDeps,
  ) {}

  /** The revision negotiated with the server at the last connect (`undefined` before one). */
  protocolVersion: string | undefined;
  /** What the server said it can do at the last connect. */
  serverCapabilities: unknown;

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
        const parsed = ToolShape.safeParse(raw);
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
          ...(taskSupportOf(t) && serverRunsToolTasks(this.serverCapabilities, this.protocolVersion)
            ? { taskSupport: taskSupportOf(t)! }
            : {}),
        });
        if (tools.length > MCP_LIMITS.toolsPerServer)
          throw new Error(`more than ${MCP_LIMITS.toolsPerServer} tools (use its "tools" list)`);
      }
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
  }

  /**
   * One `tools/call` with the idempotency key in `_meta`, answered within the server's `timeoutMs`.
   * A 2026-07-28 server that needs input first answers with questions (`input_required`): they are
   * returned, and the call is made again with their answers (`opts.resume`).
   */
  async callTool(
    name: string,
    args: unknown,
    idempotencyKey: string,
    signal: AbortSignal,
    opts: CallOptions = {},
  ): Promise<CallOutcome> {
    const params = {
      name,
      arguments: (args ?? {}) as Record<string, unknown>,
      _meta: { [IDEMPOTENCY_META]: idempotencyKey },
      ...(opts.resume ? { inputResponses: opts.resume.inputResponses } : {}),
      ...(opts.resume?.requestState !== undefined ? { requestState: opts.resume.requestState } : {}),
      ...(opts.task ? { task: {} } : {}),
    };
    const options = { signal, timeout: this.server.timeoutMs, allowInputRequired: true };
    const answer = await this.#request(async (c) => {
      this.#ask = opts.ask ?? null;
      try {
        return opts.task
          ? await c.request({ method: "tools/call", params }, AnyResult, options)
          : await c.request({ method: "tools/call", params }, options);
      } finally {
        this.#ask = null;
      }
    }, signal);
    const task = opts.task ? createdTaskOf(answer) : null;
    if (task) return { kind: "task", task };
    const round = inputRoundOf(answer);
    return round ?? { kind: "result", result: answer as Record<string, unknown> };
  }

  /** `tasks/get`, `tasks/result` or `tasks/cancel` (docs/API.md#mcp-tasks): the raw answer; `ask` as a call's. */
  taskRequest(
    method: "tasks/get" | "tasks/result" | "tasks/cancel",
    taskId: string,
    signal: AbortSignal,
    ask?: AskInput,
  ): Promise<Record<string, unknown>> {
    // Only a request that answers questions takes the connection's question handler.
    return this.#request(async (c) => {
      if (ask) this.#ask = ask;
      try {
        return await c.request({ method, params: { taskId } }, AnyResult, { signal, timeout: this.server.timeoutMs });
      } finally {
        if (ask) this.#ask = null;
      }
    }, signal);
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
        const lost = err instanceof SdkHttpError && (err.status === 404 || err.status === 400);
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
      {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: "auto", probe: { timeoutMs: MCP_LIMITS.listTimeoutMs } },
        // Questions of a 2026-07-28 server come back to the runtime, which asks a person durably.
        inputRequired: { autoFulfill: false },
      },
    );
    // A 2025-11-25 server asks over the open stream while the call runs.
    client.setRequestHandler("elicitation/create", async (request: ElicitRequest) => {
      const ask = this.#ask;
      if (!ask) return { action: "cancel" };
      return (await ask(questionOf(request.params))) as ElicitResult;
    });
    const url = new URL(this.server.url);
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: this.#withToken(boundedFetch(this.deps, url.origin)),
      requestInit: { headers, redirect: "manual" },
      redirectPolicy: "follow",
    });
    await client.connect(transport, { timeout: MCP_LIMITS.listTimeoutMs });
    this.protocolVersion = client.getNegotiatedProtocolVersion();
    this.serverCapabilities = client.getServerCapabilities();
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
