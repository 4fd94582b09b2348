/**
 * The configured MCP servers as one tool source (docs/API.md#mcp-servers): listings cached for
 * 5 minutes per holder (a session object, or a Worker isolate for `GET /v1/tools`), and calls with
 * the idempotency key, retried for `read` and `idempotent` tools, that never throw.
 */
import type { ToolEffect } from "../../log";
import type { CallInput, RemoteTaskStatus, ToolResult } from "../types";
import { type CallOptions, type ListedTool, McpCallError, McpConnection, type McpConnectionDeps } from "./client";
import type { McpServerConfig } from "./config";
import { mapCallResult, mcpEffect, mcpModelName } from "./mapping";
import type { McpAnswer, McpQuestion } from "./questions";
import { taskQuestion } from "./task-input";
import { MCP_TASK_TIMEOUT_MS, remoteStatusOf, taskOf } from "./tasks";

export const LISTING_TTL_MS = 5 * 60 * 1000;
/** How long a failed listing is remembered: a down server is asked again after this, not on every turn. */
export const FAILED_LISTING_TTL_MS = 30 * 1000;
/** Retries of a failed `read` or `idempotent` call, with the same key. */
export const MCP_CALL_RETRIES = 2;

/** An MCP tool as a session may be given it. */
export type McpToolSpec = {
  /** The model-visible name, `<server>__<tool>`. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  parameters: Record<string, unknown>;
  effect: ToolEffect;
  /** Called task-augmented (docs/API.md#mcp-tasks): its server runs it as a task. */
  task?: true;
};

/** Why a server's tools are missing: it needs a person's authorization (OAuth), or it failed. */
export type UnavailableReason = "needs_authorization" | "unreachable";
export type UnavailableServer = { server: string; reason: UnavailableReason };
/** A listed server and the protocol revision it was listed with (docs/API.md#mcp-protocol-versions). */
export type ListedServer = { server: string; protocolVersion: string };
export type McpListing = { tools: McpToolSpec[]; unavailable: UnavailableServer[]; servers?: ListedServer[] };

type Listed = { tools: ListedTool[]; protocolVersion: string };
type Cached = ({ at: number } & Listed) | { at: number; failure: Error };

export class McpHub {
  readonly servers: readonly McpServerConfig[];
  #connections = new Map<string, McpConnection>();
  #cache = new Map<string, Cached>();
  /** The listing under way per server: concurrent callers share it. */
  #pending = new Map<string, Promise<Listed>>();
  /** Requests under way on any connection; `#released`: close them all once there are none. */
  #inFlight = 0;
  #released = false;

  constructor(
    servers: readonly McpServerConfig[],
    private readonly deps: McpConnectionDeps & {
      now: () => number;
      /** Takes the deployment's secret values out of what a server says of its tools (docs/API.md#secrets). */
      redact?: (value: unknown) => unknown;
    },
  ) {
    this.servers = servers;
  }

  get configured(): boolean {
    return this.servers.length > 0;
  }

  /** Every server's tools (from the cache when younger than 5 minutes); a server that fails is `unavailable`. */
  async list(): Promise<McpListing> {
    const results = await Promise.all(
      this.servers.map(async (server) => {
        try {
          return { server, tools: await this.#listed(server), reason: null };
        } catch (err) {
          const needs = err instanceof McpCallError && err.kind === "needs_authorization";
          if (!needs) console.warn(`highwater: MCP server ${server.name} unavailable: ${(err as Error).message}`);
          return { server, tools: null, reason: needs ? ("needs_authorization" as const) : ("unreachable" as const) };
        }
      }),
    );
    const tools: McpToolSpec[] = [];
    const seen = new Set<string>();
    const unavailable: UnavailableServer[] = [];
    const servers: ListedServer[] = [];
    for (const { server, tools: listed, reason } of results) {
      if (!listed) {
        unavailable.push({ server: server.name, reason: reason ?? "unreachable" });
        continue;
      }
      servers.push({ server: server.name, protocolVersion: listed.protocolVersion });
      for (const t of listed.tools) {
        const name = mcpModelName(server.name, t.name);
        // Two tools cut to the same name: the first keeps it, so the choice is stable.
        if (seen.has(name)) continue;
        seen.add(name);
        const redact = this.deps.redact ?? ((v: unknown) => v);
        tools.push({
          name,
          server: server.name,
          tool: t.name,
          description: redact(t.description ?? "") as string,
          parameters: redact(t.inputSchema) as Record<string, unknown>,
          effect: mcpEffect(server, t.name, t.annotations),
          ...(t.taskSupport ? { task: true as const } : {}),
        });
      }
    }
    return { tools, unavailable, servers };
  }

  /**
   * The server's tools: from the cache (5 minutes; a failure 30 s), else from the listing already
   * under way, else from a new one.
   */
  #listed(server: McpServerConfig): Promise<Listed> {
    const hit = this.#cache.get(server.name);
    const now = this.deps.now();
    if (hit && "tools" in hit && now - hit.at < LISTING_TTL_MS) return Promise.resolve(hit);
    if (hit && "failure" in hit && now - hit.at < FAILED_LISTING_TTL_MS) return Promise.reject(hit.failure);
    let pending = this.#pending.get(server.name);
    if (!pending) {
      pending = this.#use(server, async (c) => ({
        tools: await c.listTools(),
        protocolVersion: c.protocolVersion ?? "unknown",
      }))
        .then(
          (listed) => {
            this.#cache.set(server.name, { at: now, ...listed });
            return listed;
          },
          (err: unknown) => {
            const failure = err instanceof Error ? err : new Error(String(err));
            // Authorization is asked again at once: a user who just connected sees the tools.
            if (!(failure instanceof McpCallError && failure.kind === "needs_authorization"))
              this.#cache.set(server.name, { at: now, failure });
            throw failure;
          },
        )
        .finally(() => this.#pending.delete(server.name));
      this.#pending.set(server.name, pending);
    }
    return pending;
  }

  /**
   * One `tools/call` as a tool outcome: transport failures and HTTP errors are `tool_failed`, no
   * answer in time `tool_timeout`, each retried up to 2 times with the same key unless `write`.
   */
  async call(
    spec: McpToolSpec,
    args: unknown,
    idempotencyKey: string,
    signal: AbortSignal,
    input: { resume?: CallInput; ask?: (q: McpQuestion) => Promise<McpAnswer> } = {},
  ): Promise<ToolResult> {
    const server = this.servers.find((s) => s.name === spec.server);
    if (!server) return failed("tool_unavailable", `MCP server ${spec.server} is no longer configured`);
    const attempts = spec.effect === "write" ? 1 : 1 + MCP_CALL_RETRIES;
    let last: McpCallError | null = null;
    let asked = false;
    const ask = input.ask;
    const opts: CallOptions = {
      ...(input.resume
        ? {
            resume: {
              inputResponses: input.resume.responses,
              ...(input.resume.requestState !== undefined ? { requestState: input.resume.requestState } : {}),
            },
          }
        : {}),
      ...(ask
        ? {
            ask: async (q: McpQuestion) => {
              asked = true;
              return ask(q);
            },
          }
        : {}),
      ...(spec.task ? { task: true } : {}),
    };
    for (let i = 0; i < attempts; i++) {
      try {
        const outcome = await this.#use(server, (c) => c.callTool(spec.tool, args, idempotencyKey, signal, opts));
        if (outcome.kind === "result") return mapCallResult(outcome.result);
        if (outcome.kind === "task")
          return {
            status: "ok",
            response: null,
            remoteTask: {
              taskId: outcome.task.taskId,
              target: { server: server.name },
              timeoutMs: server.taskTimeoutMs ?? MCP_TASK_TIMEOUT_MS,
            },
          };
        if (outcome.unsupported.length > 0)
          return failed(
            "tool_failed",
            `MCP server ${server.name} asked for input highwater does not offer (${outcome.unsupported.join("; ")})`,
          );
        return {
          status: "ok",
          response: null,
          awaitInput: {
            questions: outcome.questions,
            ...(outcome.requestState !== undefined ? { requestState: outcome.requestState } : {}),
          },
        };
      } catch (err) {
        last = err instanceof McpCallError ? err : new McpCallError("transport", String(err));
        if (last.kind === "aborted") return failed("aborted", "the call was stopped");
        if (last.kind === "needs_authorization") {
          // The token was refused mid-turn (revoked): the next listing asks again, so the server
          // is `unavailable` with `needs_authorization` until the person connects it again.
          this.#cache.delete(server.name);
          return failed("tool_unavailable", last.message);
        }
        // A JSON-RPC error or an answer over the limit would be the same again; a call that asked
        // a person something is not made again behind their back.
        if (last.kind === "protocol" || last.kind === "too_large" || asked) break;
      }
    }
    const code = last?.kind === "timeout" ? "tool_timeout" : "tool_failed";
    const message =
      last?.kind === "timeout"
        ? `no answer from MCP server ${server.name} within ${server.timeoutMs} ms`
        : `MCP server ${server.name}: ${last?.message ?? "failed"}`;
    return failed(code, message);
  }

  /**
   * A task's state (docs/API.md#mcp-tasks): `tasks/get`, and once `completed` its `tasks/result`
   * mapped as a direct call's result; in `input_required`, its question, or the task's answer to
   * `answered` (./task-input.ts). Throws when it could not be asked (it is asked again later).
   */
  async pollTask(
    serverName: string,
    taskId: string,
    signal: AbortSignal,
    answered?: { question: McpQuestion; answer: McpAnswer },
  ): Promise<RemoteTaskStatus> {
    return this.#use(this.#server(serverName), async (connection) => {
      const task = taskOf(await connection.taskRequest("tasks/get", taskId, signal));
      if (!task || task.taskId !== taskId)
        throw new Error(`MCP server ${serverName}: tasks/get answered no task ${taskId}`);
      if (task.status === "input_required") return taskQuestion(connection, task, signal, answered);
      if (task.status !== "completed") return remoteStatusOf(task);
      return remoteStatusOf(task, await connection.taskRequest("tasks/result", taskId, signal));
    });
  }

  /** `tasks/cancel` of a task; its state after the cancel when the server says one. */
  async cancelTask(serverName: string, taskId: string, signal: AbortSignal): Promise<RemoteTaskStatus | null> {
    const answer = await this.#use(this.#server(serverName), (c) => c.taskRequest("tasks/cancel", taskId, signal));
    const task = taskOf(answer);
    // A cancel that says the task completed carries no result: it is polled for it instead.
    return task && task.taskId === taskId && task.status !== "completed" ? remoteStatusOf(task) : null;
  }

  #server(name: string): McpServerConfig {
    const server = this.servers.find((s) => s.name === name);
    if (!server) throw new Error(`MCP server ${name} is no longer configured`);
    return server;
  }

  /**
   * Closes every connection once no request is under way: a stream a server keeps open would hold
   * the session's object in memory (docs/design.md#memory-an-object-holds). The next request connects again.
   */
  release(): void {
    this.#released = true;
    if (this.#inFlight === 0) for (const c of this.#connections.values()) c.close();
  }

  /** A request on the server's connection, counted as under way until it ends. */
  async #use<T>(server: McpServerConfig, request: (connection: McpConnection) => Promise<T>): Promise<T> {
    this.#inFlight++;
    this.#released = false;
    try {
      return await request(this.#connection(server));
    } finally {
      if (--this.#inFlight === 0 && this.#released) this.release();
    }
  }

  #connection(server: McpServerConfig): McpConnection {
    let c = this.#connections.get(server.name);
    if (!c) {
      c = new McpConnection(server, this.deps);
      this.#connections.set(server.name, c);
    }
    return c;
  }
}

function failed(code: string, message: string): ToolResult {
  return { status: "error", response: { code, message } };
}
