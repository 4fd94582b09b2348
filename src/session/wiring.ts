/**
 * Wires a session's runtime over its Durable Object storage: migrations, the event store, the
 * scheduled work and the ports the runtime reaches out through. The alarm is the runtime's alone
 * (docs/design.md#where-things-live): these ports only carry out what its `arm` decided.
 */

import type { Event } from "../log";
import { EventStore, ModelViewReads } from "../log";
import type { ModelConfig, ModelProvider } from "../model";
import type { Session } from "../projections";
import { SessionRuntime } from "../runtime";
import { failpoint, failpointArmed } from "../runtime/failpoints";
import type { RuntimeFeature } from "../runtime/feature";
import { applyMigrations } from "../storage";
import { parseAllowedHosts } from "../tools";
import { mcpHubFor } from "../tools/mcp";
import { makeChildrenPort } from "./children-port";
import { tokenSourceOf } from "./token-store";

export type Hooks = {
  modelProvider: (model: ModelConfig) => ModelProvider;
  onCommit: (events: Event[], session: Session | null) => void;
  onDelta: (frame: string) => void;
  principal: () => string | null;
};

export type Opened = { runtime: SessionRuntime; store: EventStore };

/** When the trace-export outbox next needs the alarm (its slot among the runtime's dues). */
export type TraceExportDue = () => number | null;

/** Whether this object's storage has ever been written (its migrations table exists). Reads only. */
export function isWritten(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").toArray().length > 0;
}

/** Migrates and wires the runtime (call inside the seq 1 block for a new session). */
export function openSession(
  ctx: DurableObjectState,
  env: Env,
  hooks: Hooks,
  traceExportDue: TraceExportDue,
  features: readonly RuntimeFeature[],
): Opened {
  const sql = ctx.storage.sql;
  const transactionSync = <T>(fn: () => T): T => ctx.storage.transactionSync(fn);
  transactionSync(() => applyMigrations(sql));
  const sessionId = ctx.id.toString();
  const store = new EventStore(sql, sessionId, transactionSync);
  for (const feature of features) feature.catchUp?.(sql, store, transactionSync);
  // The port derives children in this session's jurisdiction, read from its seq 1 when it spawns.
  let runtime: SessionRuntime | null = null;
  const children = makeChildrenPort(env, sessionId, {
    principal: hooks.principal,
    jurisdiction: () => runtime?.summary?.options.jurisdiction,
  });
  runtime = new SessionRuntime({
    sessionId,
    store,
    view: new ModelViewReads(sql, transactionSync, () => store.head().highWater),
    sql,
    transactionSync,
    setAlarm: (at) => ctx.storage.setAlarm(at),
    deleteAlarm: () => ctx.storage.deleteAlarm(),
    traceExportDue,
    // Each provider gets only its own credentials (docs/API.md §1).
    providerFor: hooks.modelProvider,
    fetch: (i, init) => fetch(i, init),
    env: env as unknown as Record<string, unknown>,
    config: {
      httpAllowedHosts: parseAllowedHosts(env.HTTP_TOOL_ALLOWED_HOSTS),
      offloadThresholdBytes: Number(env.OFFLOAD_THRESHOLD_BYTES) || 32_768,
      HW_FAILPOINT: env.HW_FAILPOINT,
      HW_FAILPOINT_URL: env.HW_FAILPOINT_URL,
      secrets: providerSecrets(env),
    },
    onCommit: hooks.onCommit,
    onDelta: (frame) => hooks.onDelta(JSON.stringify({ type: "delta", ...frame })),
    children,
    features,
    principal: hooks.principal,
    mcp: mcpHubFor(env, {
      fetch: mcpFetch(env),
      tokens: tokenSourceOf(env, hooks.principal, (i, init) => fetch(i, init)),
    }),
  });
  return { runtime, store };
}

/** Fetch for MCP servers; with the F5 failpoint armed, a `tools/call` stops the object once it has left. */
function mcpFetch(env: Env): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const pending = fetch(input, init);
    if (failpointArmed(env, "F5") && typeof init?.body === "string" && init.body.includes('"method":"tools/call"')) {
      // Give the request time to reach the server, then stop here (crash tests).
      await new Promise((r) => setTimeout(r, 300));
      await failpoint(env, "F5");
    }
    return pending;
  }) as typeof fetch;
}

/** Every configured provider key, so that no recorded attempt message can hold one (docs/API.md §7.8). */
function providerSecrets(env: Env): string[] {
  const vars = env as unknown as Record<string, unknown>;
  return ["MODEL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"].flatMap((k) =>
    typeof vars[k] === "string" && vars[k] ? [vars[k] as string] : [],
  );
}
