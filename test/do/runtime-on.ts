import { FEATURES } from "../../src/features";
import { EventStore, ModelViewReads } from "../../src/log";
import { createProvider } from "../../src/model";
import type { RuntimeDeps } from "../../src/runtime/deps";
import { SessionRuntime } from "../../src/runtime/session-runtime";
import type { SqlLike } from "../../src/storage";

/**
 * A runtime over an object's storage, as a new instance after an eviction would make it: no
 * alarm, no sockets, the configured providers and the built-in features (`over` replaces any of its deps).
 */
export function runtimeOn(
  sql: SqlLike,
  transactionSync: <T>(fn: () => T) => T,
  sessionId: string,
  over: Partial<RuntimeDeps> = {},
): { runtime: SessionRuntime; store: EventStore } {
  const store = new EventStore(sql, sessionId, transactionSync);
  const runtime = new SessionRuntime({
    sessionId,
    store,
    view: new ModelViewReads(sql, transactionSync, () => store.head().highWater),
    sql,
    transactionSync,
    setAlarm: async () => {},
    deleteAlarm: async () => {},
    providerFor: (m) => createProvider(m, {}),
    fetch,
    config: { httpAllowedHosts: [], offloadThresholdBytes: 32_768 },
    onCommit: () => {},
    onDelta: () => {},
    features: FEATURES,
    ...over,
  });
  return { runtime, store };
}
