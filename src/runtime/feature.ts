/**
 * The runtime's plug (docs/design.md#plugs): what a feature contributes to a session's log, its
 * tables, its alarm and what the model is shown. The runtime calls these; it never names a feature.
 */
import type { BlobMeta, Event, EventDraft, EventStore } from "../log";
import type { SessionOptions, SessionSummary } from "../projections";
import type { SqlLike } from "../storage/sql";
import type { AnyTool } from "../tools/registry";
import type { SessionRuntime } from "./session-runtime";

/** What a lifecycle hook works with: the runtime (commands, commits, the alarm) and the object's tables. */
export type FeatureHost = { readonly runtime: SessionRuntime; readonly sql: SqlLike };

/** The ids a hook's drafts carry: the open turn and its run. */
export type TurnBase = { turnId: string; runId: string };

/**
 * What `beforeTurn` is handed: the session as last recorded (the feature's own slice among it),
 * who it belongs to, the Worker's bindings, and a blob writer for large text (a draft refers to
 * a stored blob as `{ $blob: meta }`, the way `stateDelta.toolset` does).
 */
export type TurnPort = {
  readonly summary: SessionSummary;
  /** This feature's slice of the summary (`summary.features[name]`), undefined until its fold first returned one. */
  readonly slice: unknown;
  readonly options: SessionOptions;
  readonly sessionId: string;
  /** The principal the session belongs to (sha256 of its owner's bearer token), null if unknown. */
  readonly principal: string | null;
  /** The Worker's vars, secrets and bindings (a namespace of another Durable Object, for instance). */
  readonly env: Record<string, unknown>;
  readonly base: TurnBase;
  /** Aborted by a stop. */
  readonly signal: AbortSignal;
  now(): number;
  /** Stores text (or bytes) in the session's blobs; put `{ $blob: meta }` in a draft to refer to it. */
  putBlob(data: string | Uint8Array, mediaType?: string): BlobMeta;
  readBlob(sha256: string): string | null;
};

/**
 * What `deliver` works with: the feature's tables, the Worker's bindings (another object's
 * namespace) and the session's id. Nothing of the runtime: an outbox only reads its own rows.
 */
export type DeliverPort = {
  readonly sql: SqlLike;
  readonly env: Record<string, unknown>;
  readonly sessionId: string;
  /** The Worker's fetch, as every outbound request of the session makes it. */
  readonly fetch: typeof fetch;
  now(): number;
  /** Sets the alarm for what is owed now (after a try's retry time is stored, before the send). */
  arm(): Promise<void>;
};

/** What `context` reads: the summary (the feature's slice among it) and the session's blobs. Nothing else. */
export type ContextView = {
  readonly summary: SessionSummary;
  readonly slice: unknown;
  readBlob(sha256: string): string | null;
};

/** What a feature adds to every model call: text after the system prompt, and tools (shown and runnable). */
export type ContextShown = { system?: string; tools?: readonly AnyTool[] };

export type RuntimeFeature = {
  readonly name: string;
  /** Built-in tools, in the order the model sees them. */
  readonly tools?: readonly AnyTool[];
  /** The session options of this feature a sub-session takes from its parent (docs/API.md §7.31). */
  readonly inheritOptions?: readonly string[];
  /** Folds committed events into the feature's tables, inside the transaction that appended them. */
  readonly apply?: (sql: SqlLike, events: Event[]) => void;
  /**
   * Whether `apply` writes anything for these events (pure, cheap), given the feature's slice of
   * the summary after them (a feature whose tables only matter once its slice says so answers from
   * it). `apply` runs only when this is true. A commit whose features and summary write nothing is
   * one INSERT (docs/design.md#3-storage). Absent: `apply` runs with every commit that writes.
   */
  readonly touches?: (events: Event[], slice: unknown) => boolean;
  /** Brings the feature's tables up to the log's head when the object opens. */
  readonly catchUp?: (sql: SqlLike, store: EventStore, transactionSync: <T>(fn: () => T) => T) => void;
  /**
   * Hosts (`HTTP_TOOL_ALLOWED_HOSTS` patterns) that `http_fetch` refuses because the feature
   * reaches them through its own tools (an A2A agent's origin), from the Worker's vars.
   */
  readonly deniedHosts?: (env: Record<string, unknown>) => string[];
  /** When the feature next needs the alarm (epoch ms; `now` or earlier: at once), or null. */
  readonly nextDue?: (sql: SqlLike, summary: SessionSummary | null, now: number) => number | null;
  /** When the object wakes, before the loop's slice (fire what is due, start a queued run). Must not throw. */
  readonly beforeSlice?: (host: FeatureHost) => void;
  /** After the loop's slice and after a stop: the turn may have closed (start the run queued behind it). */
  readonly afterTurn?: (host: FeatureHost) => void;
  /**
   * After the slice and `afterTurn`, when the object wakes: hands what the feature's tables owe to
   * someone else (another object, an outbox). May do I/O. It stores each attempt's retry time
   * before it sends, and `nextDue` reports it, so a crash mid-delivery comes back. A throw is logged.
   */
  readonly deliver?: (port: DeliverPort) => Promise<void>;
  /**
   * Folds one committed event into the feature's slice of the summary (`summary.features[name]`):
   * typically its own hidden `stateDelta`. Pure; return `slice` itself when nothing changed.
   */
  readonly fold?: (slice: unknown, event: Event) => unknown;
  /**
   * Before a turn's first model call (beside the MCP toolset): may do I/O, and returns hidden
   * `stateDelta` drafts recording what the model will be shown ([] when nothing changed). The
   * runtime commits them before the turn's first model request.
   */
  readonly beforeTurn?: (port: TurnPort) => Promise<EventDraft[]>;
  /**
   * What the model is shown at every model call, from the log alone (the slice and blobs): the
   * same summary gives the same bytes, so a request rebuilt after a restart is identical.
   */
  readonly context?: (view: ContextView) => ContextShown;
};
