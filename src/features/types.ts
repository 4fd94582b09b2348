/**
 * What a feature beyond a turn contributes to a session: its routes on
 * the Hono app, its tools, how its table cache follows the log, and when it needs the alarm.
 * The app, the registry and the runtime mount every feature in `FEATURES` (./index.ts).
 */
import type { EdgeApp } from "../http/types";
import type { Event, EventStore } from "../log";
import type { SqlLike } from "../storage/sql";
import type { AnyTool } from "../tools/registry";

export type Feature = {
  readonly name: string;
  /** Mounts the feature's routes (behind the session lookup, before the app's 404). */
  readonly routes?: (app: EdgeApp) => void;
  /** Built-in tools, in the order the model sees them. */
  readonly tools?: readonly AnyTool[];
  /** Folds committed events into the feature's tables, inside the transaction that appended them. */
  readonly apply?: (sql: SqlLike, events: Event[]) => void;
  /**
   * Whether `apply` writes anything for these events (pure, cheap). A commit whose features and
   * summary write nothing is one INSERT (docs/design.md#3-storage). Absent: `apply` may always write.
   */
  readonly touches?: (events: Event[]) => boolean;
  /** Brings the feature's tables up to the log's head when the object opens. */
  readonly catchUp?: (sql: SqlLike, store: EventStore, transactionSync: <T>(fn: () => T) => T) => void;
  /** When the feature next needs the alarm (epoch ms), or null. */
  readonly nextDue?: (sql: SqlLike) => number | null;
};
