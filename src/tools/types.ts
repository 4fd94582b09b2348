import type { z } from "zod";
import type { SessionOptions } from "../contract";
import type { BlobStore, ToolEffect } from "../log";
import type { SqlLike } from "../storage";
import type { McpAnswer, McpQuestion } from "./mcp/questions";

/** A workspace change a write tool asks for; the runtime applies it in the same transaction as T2. */
export type FileChange = { path: string; content: string | null };

/** A tool's outcome. `error` is an outcome the model reads (e.g. file not found), not a crash. */
export type ToolResult = {
  /** `interrupted`: a `write` call cut off by its timeout, whose effect may have happened. */
  status: "ok" | "error" | "interrupted";
  response: unknown;
  fileChanges?: FileChange[];
  /** Facts the outcome records on its T2 event's `actions.stateDelta` (e.g. a work-record revision). */
  stateDelta?: Record<string, unknown>;
  /** The call's response comes later, from a child session's report (`spawn_session`): no T2 now. */
  awaitChild?: true;
  /**
   * The call's response comes later, from this remote task (docs/design.md#remote-calls): no T2
   * now. `target` names where the task lives (`{ agent }`, `{ server }`) and is recorded with it;
   * `timeoutMs` bounds the whole task (recorded as a deadline): past it the call is answered
   * `remote_timeout` and the task cancelled (docs/API.md#mcp-tasks).
   */
  remoteTask?: { taskId: string; target: Record<string, string>; timeoutMs?: number };
  /**
   * The remote tool needs a person's answers first (docs/API.md#questions-from-mcp-servers): no T2
   * now; the questions are recorded and the call is made again with their answers.
   */
  awaitInput?: { questions: { key: string; question: McpQuestion }[]; requestState?: string };
};

/** The answers a call is made again with, and the remote tool's state echoed back. */
export type CallInput = { responses: Record<string, McpAnswer>; requestState?: string };

/** A remote task's state as the remote-call core reads it (docs/design.md#remote-calls). */
export type RemoteTaskState =
  | "working"
  | "input-required"
  | "completed"
  | "failed"
  | "cancelled"
  | "rejected"
  /** Never said by a remote: the runtime's own, when the task's deadline passed. */
  | "timed-out";

/** What a poll (or a cancel) learned of a remote task: its state and, once terminal, the call's answer. */
export type RemoteTaskStatus = {
  taskId: string;
  state: RemoteTaskState;
  /** `completed`: the call's response; otherwise what the remote said (a failure's reason, a question). */
  response?: unknown;
  message?: string;
  /** `completed`, but what it answered is an error outcome (an MCP tool result with `isError`). */
  error?: true;
  /** `input-required` of an MCP task: the question it asks (docs/API.md#mcp-tasks), answered as an elicitation. */
  question?: McpQuestion;
};

/**
 * The port a remote tool implements besides its `run` (which is the send): how the runtime learns
 * the outcome of the task a call started, and how a stop cancels it (docs/design.md#remote-calls).
 * A2A agents and MCP tasks are adapters of it; the runtime never names either.
 */
export type RemoteTaskPort = {
  poll(taskId: string, ctx: ToolContext): Promise<RemoteTaskStatus>;
  /** Best effort; answers the task's state after the cancel when the remote says it. */
  cancel(taskId: string, ctx: ToolContext): Promise<RemoteTaskStatus | null>;
  /**
   * The user's answer to a task that asked for input (`input-required`), sent to the same task
   * under `messageId` (derived from the answer's event, so a repeat after a crash is the same message).
   */
  reply?(taskId: string, text: string, messageId: string, ctx: ToolContext): Promise<RemoteTaskStatus | null>;
};

/**
 * What the runtime hands a remote tool's send: the wait its task will release, and a
 * single-purpose token for push notifications about it (valid while that wait is open, or until
 * a late result for it is recorded).
 */
export type RemoteSendContext = { waitId: string; notifyToken: string };

export type ToolContext = {
  sessionId: string;
  callId: string;
  /** The seq of the model answer that made the call. */
  callSeq?: number;
  idempotencyKey: string;
  /**
   * The owner's directory object id (recorded in seq 1): it names the objects that hold the
   * owner's state outside any session (memory). Absent in sessions from before it was recorded.
   */
  directoryId?: string;
  signal: AbortSignal;
  /** The session's SQLite, for reading the workspace (`files`) table. Tools never write it directly. */
  sql: SqlLike;
  blobs: BlobStore;
  /** Parsed `HTTP_TOOL_ALLOWED_HOSTS` patterns. */
  httpAllowedHosts: string[];
  fetch: typeof fetch;
  /** The Worker's vars and secrets (a custom tool's `ctx.env`). */
  env?: Record<string, unknown>;
  /** A Worker var or secret by name (`ctx.secret`); its value is redacted from the result before commit. */
  secret?: (name: string) => string | undefined;
  /** Parsed `HTTP_TOOL_SECRETS`: the hosts each secret may be sent to by `http_fetch`. */
  httpSecretHosts?: Record<string, string[]>;
  /** Creates (or re-attaches to) the child session of this call (`spawn_session`); absent where there is none. */
  spawnChild?: (args: { goal: string; tools?: string[] }) => Promise<ToolResult>;
  /** For a remote tool's send (`ToolDefinition.remote`): the wait and the notification token. */
  remote?: RemoteSendContext;
  /** Hosts `http_fetch` refuses (features reach them through their own tools: an A2A agent's). */
  httpDeniedHosts?: string[];
  /** A call made again with the answers to the questions its last attempt asked. */
  input?: CallInput;
  /** Asks a person a question while the call runs (recorded in the log) and waits for the answer. */
  ask?: (question: McpQuestion) => Promise<McpAnswer>;
  /** A poll of a task that asked a question of its own: the question last recorded and its answer. */
  taskAnswer?: { question: McpQuestion; answer: McpAnswer };
};

/** Where a tool comes from (docs/API.md#tools): absent on a definition means `"builtin"`. */
export type ToolSource = "builtin" | "custom" | `mcp:${string}` | `a2a:${string}`;

export interface ToolDefinition<I = unknown> {
  name: string;
  source?: ToolSource;
  description: string;
  /** zod schema for the arguments; also the JSON schema the model sees. */
  input: z.ZodType<I>;
  /** The effect of this call (http_fetch: read for GET/HEAD, write otherwise). */
  effect(args: I): ToolEffect;
  run(args: I, ctx: ToolContext): Promise<ToolResult>;
  /** The JSON schema the model sees, when it is not derived from `input` (an MCP server's own). */
  parameters?: Record<string, unknown>;
  /** How long one call may take (an MCP server's `timeoutMs`); default the runtime's tool timeout. */
  timeoutMs?: number;
  /**
   * The tool reaches outside the session without the runtime's fetch (an RPC to another object):
   * the F5 failpoint (docs/design.md §5) then fires while its call is in flight, as for a custom tool.
   */
  callsOut?: boolean;
  /** Whether a session created with `options` has this tool at all (absent: every session has it). */
  availableFor?(options: SessionOptions): boolean;
  /** The call's outcome arrives later from a remote task: `run` sends, this port polls and cancels. */
  remote?: RemoteTaskPort;
  /** What `GET /v1/tools` says of the effect when it is not one value (`http_fetch`: by its arguments). */
  declaredEffect?: ToolEffect | "by-arguments";
}
