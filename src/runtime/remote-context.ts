/** What a remote tool's poll, reply or cancel is given: the call's context without a send's. */
import { deadline } from "../contract";
import type { RemoteTaskPort, RemoteTaskStatus, ToolContext } from "../tools/types";
import type { RuntimeCtx } from "./deps";
import { callSecrets } from "./tool-secrets";

/** How long one poll, reply or cancel may take. */
const REMOTE_REQUEST_MS = 30_000;

export type RemoteContext = ToolContext & { values: () => Record<string, string> };

/** Runs a poll, a reply or a cancel with the call's context (no send's), under a deadline that ends with it. */
export async function withRemoteContext<T>(
  rt: RuntimeCtx,
  callId: string,
  run: (ctx: RemoteContext) => Promise<T>,
): Promise<T> {
  const limit = deadline(REMOTE_REQUEST_MS);
  try {
    return await run(remoteContext(rt, callId, limit.signal));
  } finally {
    limit.clear();
  }
}

function remoteContext(rt: RuntimeCtx, callId: string, signal: AbortSignal): RemoteContext {
  const secrets = callSecrets(rt.deps.env ?? {});
  return {
    sessionId: rt.deps.sessionId,
    callId,
    idempotencyKey: "",
    signal,
    sql: rt.deps.sql,
    blobs: rt.deps.store.blobs,
    httpAllowedHosts: rt.deps.config.httpAllowedHosts,
    fetch: rt.deps.fetch,
    env: rt.deps.env ?? {},
    secret: secrets.read,
    httpSecretHosts: secrets.httpHosts,
    values: secrets.values,
  };
}

/** Asks a remote tool's server to cancel a task (best effort): its answer, or null if it gave none or failed. */
export async function cancelRemote(
  rt: RuntimeCtx,
  port: RemoteTaskPort | undefined,
  callId: string,
  taskId: string,
): Promise<RemoteTaskStatus | null> {
  if (!port) return null;
  return withRemoteContext(rt, callId, (ctx) => port.cancel(taskId, ctx)).catch(() => null);
}
