/** What the driver's modules share: the object's ports and the runtime's own state, behind one interface. */
import type { ContextInput } from "../context";
import type { StopSource } from "../contract/deadline";
import type { Event, EventDraft, EventStore, ModelViewReads } from "../log";
import type { ModelConfig, ModelProvider } from "../model/types";
import type { CallState, RunState, Session, SessionSummary } from "../projections";
import type { SqlLike } from "../storage";
import type { McpHub } from "../tools/mcp/hub";
import type { ToolDefinition } from "../tools/types";
import type { ChildrenPort } from "./children";
import type { FailpointEnv, FailpointId } from "./failpoints";
import type { RuntimeFeature } from "./feature";
import type { RuntimePolicy } from "./retry";
import type { UnderWay } from "./under-way";

export type RuntimeConfig = FailpointEnv & {
  httpAllowedHosts: string[];
  offloadThresholdBytes: number;
  /** Configured provider keys, redacted from every recorded message (docs/API.md §7.8). */
  secrets?: string[];
};

export type DeltaFrame = { invocationId: string; attempt: number; kind: "text" | "thinking"; text: string };

export type RuntimeDeps = {
  sessionId: string;
  store: EventStore;
  /** Reads of the model view beside the log (what a context build and a chat page read). */
  view: ModelViewReads;
  sql: SqlLike;
  transactionSync: <T>(fn: () => T) => T;
  setAlarm: (at: number) => Promise<void>;
  /** When the trace-export outbox next needs the alarm (docs/API.md#sending-traces-to-a-collector), or null. */
  traceExportDue?: () => number | null;
  deleteAlarm: () => Promise<void>;
  providerFor: (model: ModelConfig) => ModelProvider;
  fetch: typeof fetch;
  config: RuntimeConfig;
  /** The Worker's vars, secrets and bindings: a custom tool's `ctx.env`, and where secrets are read. */
  env?: Record<string, unknown>;
  /** Called after every commit with the committed events and, when it changed, the new Session. */
  onCommit: (events: Event[], session: Session | null) => void;
  onDelta: (frame: DeltaFrame) => void;
  now?: () => number;
  /** Other session objects, for sub-sessions (absent: `spawn_session` answers unavailable). */
  children?: ChildrenPort;
  /** The deployment's MCP servers (absent or empty: none), listed and called from this object. */
  mcp?: McpHub;
  /** The deployment's features, in mounting order (docs/design.md#plugs); absent: none. */
  features?: readonly RuntimeFeature[];
  /** The principal the session belongs to, for features' `beforeTurn` (null if unknown). */
  principal?: () => string | null;
  /** Overrides of the default policy (tests set the waits to 0). */
  policy?: Partial<RuntimePolicy>;
};

/** The runtime as its step modules see it. */
export interface RuntimeCtx {
  readonly deps: RuntimeDeps;
  readonly policy: RuntimePolicy;
  readonly summary: SessionSummary | null;
  require(): SessionSummary;
  session(): Session;
  commit(drafts: EventDraft[], also?: (events: Event[]) => void): Event[];
  /** Events of the open turn from its last model request (or its start). */
  turnSuffix(): Event[];
  /** The run state of `turnSuffix()`, folded from the events read since the last ask. */
  runState(): RunState;
  needsApproval(call: CallState): boolean;
  toolFor(name: string): ToolDefinition<unknown> | null;
  /** Hosts `http_fetch` refuses: those the features reach through their own tools. */
  deniedHosts(): string[];
  /** The MCP server a tool name belongs to when the turn's toolset named it unavailable. */
  unavailableServerOf(name: string): string | null;
  /**
   * Before a turn's first model call: lists the MCP servers and runs the features' `beforeTurn`,
   * then commits what changed (the toolset, the features' drafts) while the turn is still open.
   */
  beforeTurn(ids: { turnId: string; runId: string }): Promise<void>;
  contextInput(model: ModelConfig): ContextInput;
  /** Aborted by a stop: ends the model stream and running tools. */
  readonly signal: AbortSignal;
  /** The same stop, handing out a child signal per tool call (src/contract/deadline.ts). */
  readonly stops: StopSource;
  now(): number;
  failpoint(id: FailpointId): Promise<void>;
  /** Streams a delta to the sockets and keeps the current attempt's text for a late joiner. */
  delta(frame: DeltaFrame): void;
  /** The attempt ended (answered, failed or stopped): its streamed text is no longer current. */
  endAttempt(): void;
  /** The running slice holds the loop until `at`: the alarm comes back then if this isolate dies. */
  lease(at: number): Promise<void>;
  /** The slice ends; the next is due at `wake`, or, parked, once a command moves the turn. */
  endSlice(wake: number | "parked"): Promise<void>;
  /** This incarnation of the object (memory only): what it started is not a restart's to recover. */
  readonly incarnation: string;
  /** What this incarnation has under way (a model attempt, a tool run): ./under-way.ts. */
  readonly underWay: UnderWay;
  /** Spawn callIds whose child this incarnation created or re-attached to (memory only). */
  readonly attachedChildren: Set<string>;
}

/** What a command needs beyond the context: the kick of a parked loop and the decided flag. */
export type CommandCtx = RuntimeCtx & {
  /** A command moved the turn: a parked loop is due again. */
  kick(): Promise<void>;
  /** A command decided the turn (it is no longer `recovering`). */
  markDecided(): void;
};
