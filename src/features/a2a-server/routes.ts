/**
 * A2A at the edge (docs/API.md#a2a-server): the public agent card, and `POST /a2a`, the JSON-RPC
 * binding, behind the same CORS, bearer auth, origin check, rate limit and body limit as `/v1`.
 * The envelope is checked here (-32700, -32600, -32601, -32602) before the SDK's JSON-RPC
 * transport dispatches to `HighwaterA2AHandler`; streaming methods answer Server-Sent Events.
 */
import { AgentCard } from "@a2a-js/sdk";
import { ApiError, unwrap } from "../../contract";
import { auth } from "../../http/auth";
import { bodyLimitEdge } from "../../http/body";
import { corsEdge, originGuard } from "../../http/origins";
import { rateLimit } from "../../http/rate-limit";
import { sessionStub } from "../../http/routing";
import { PostMessage, parseInput } from "../../http/schemas";
import { createSession } from "../../http/sessions";
import { callerOf, directoryOf, type EdgeApp, type EdgeContext } from "../../http/types";
import { agentCard, PROTOCOL_VERSION } from "./card";
import type { HandlerOptions, Port } from "./handler";
import { pushAllowed } from "./push-deliver";
import type { PushConfig } from "./push-store";
import { sseResponse } from "./sse";
import type { TaskRef } from "./task";
import { KEY_PREFIX, type TurnView } from "./turn-read";

export const FEATURE = "a2a-server";
const CARD_PATH = "/.well-known/agent-card.json";

/** The methods of the JSON-RPC binding this server answers (A2A v1.0). */
const METHODS = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
]);

const TIMING = { blockMs: 60_000, pollMs: 250, streamMs: 10 * 60_000 };

type Envelope = { jsonrpc: "2.0"; id: string | number | null; method: string; params?: unknown };

function rpcError(id: unknown, code: number, message: string) {
  const safeId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
  return { jsonrpc: "2.0", id: safeId, error: { code, message } };
}

/** The envelope, or the JSON-RPC error that refuses it (nothing reaches a session then). */
export function checkEnvelope(text: string): { ok: true; value: Envelope } | { ok: false; error: object } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: rpcError(null, -32700, `Parse error: ${(err as Error).message}`) };
  }
  if (Array.isArray(body))
    return { ok: false, error: rpcError(null, -32600, "Invalid Request: batch requests are not supported") };
  if (typeof body !== "object" || body === null)
    return { ok: false, error: rpcError(null, -32600, "Invalid Request: not a JSON-RPC request object") };
  const r = body as Record<string, unknown>;
  const id = r.id;
  const idOk = id === undefined || id === null || typeof id === "string" || Number.isInteger(id);
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string" || r.method === "" || !idOk)
    return {
      ok: false,
      error: rpcError(id, -32600, 'Invalid Request: needs jsonrpc "2.0", a method string and a string or integer id'),
    };
  if (!METHODS.has(r.method)) return { ok: false, error: rpcError(id, -32601, `Method not found: ${r.method}`) };
  const p = r.params;
  if (p !== undefined && (typeof p !== "object" || p === null || Array.isArray(p)))
    return { ok: false, error: rpcError(id, -32602, "Invalid params: params must be an object") };
  if (p === undefined && r.method !== "GetExtendedAgentCard")
    return { ok: false, error: rpcError(id, -32602, "Invalid params: params are required") };
  return { ok: true, value: { jsonrpc: "2.0", id: (id ?? null) as Envelope["id"], method: r.method, params: p } };
}

function stubOf(c: EdgeContext, sessionId: string) {
  const stub = sessionStub(c.env, sessionId);
  if (!stub) throw new ApiError("not_found", "context not found");
  return stub;
}

/** The handler's port: the calls the HTTP routes make, for the caller of this request. */
function portOf(c: EdgeContext): Port {
  const op = async <T>(ref: TaskRef, name: string, input: object) =>
    unwrap(
      await stubOf(c, ref.sessionId).call(callerOf(c), FEATURE, name, { turnId: ref.turnId, seq: ref.seq, ...input }),
    ) as T;
  return {
    async context(contextId, messageId) {
      if (contextId !== undefined) {
        unwrap(await stubOf(c, contextId).getSession(callerOf(c)));
        return contextId;
      }
      // A new context is named by the caller and the message: a retried send finds it again.
      const id = c.env.SESSIONS.idFromName(`a2a:${c.get("principal")}:${messageId}`);
      const existing = await c.env.SESSIONS.get(id).getSession(callerOf(c));
      if (existing.ok) return id.toString();
      try {
        await createSession(c, {}, id);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === "conflict")) throw err;
        // Another send created it meanwhile; its registration stays (the refused create took it back).
        await directoryOf(c.env, c.get("principal")).add(id.toString(), null, new Date().toISOString());
      }
      return id.toString();
    },
    async post(sessionId, text, messageId) {
      const body = parseInput(PostMessage, { text, idempotencyKey: `${KEY_PREFIX}${messageId}` });
      const r = unwrap(await stubOf(c, sessionId).postMessage(callerOf(c), { ...body, source: "a2a" })) as {
        turnId: string;
        seq: number;
      };
      return { sessionId, turnId: r.turnId, seq: r.seq };
    },
    read: (ref, after) => op<TurnView>(ref, "read", after === undefined ? {} : { after }),
    async stop(sessionId) {
      unwrap(await stubOf(c, sessionId).stop(callerOf(c)));
    },
    pushSet: (ref, config) => op<PushConfig>(ref, "pushSet", { config }),
    pushGet: (ref, id) => op<PushConfig>(ref, "pushGet", { taskId: taskIdFor(ref), id }),
    pushList: (ref) => op<PushConfig[]>(ref, "pushList", { taskId: taskIdFor(ref) }),
    pushDelete: async (ref, id) => {
      await op(ref, "pushDelete", { taskId: taskIdFor(ref), id });
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    now: () => Date.now(),
  };
}

function taskIdFor(ref: TaskRef): string {
  return `${ref.sessionId}.${ref.seq}.${ref.turnId}`;
}

async function answerRpc(c: EdgeContext): Promise<Response> {
  const checked = checkEnvelope(await c.req.text());
  if (!checked.ok) return c.json(checked.error);
  const envelope = checked.value;
  const version = c.req.header("a2a-version");
  if (version !== undefined && version !== "" && version !== PROTOCOL_VERSION)
    return c.json(rpcError(envelope.id, -32009, `A2A version ${version} is not supported: use ${PROTOCOL_VERSION}`));
  // The SDK is loaded by the first /a2a request, not by the Worker's start.
  const [{ JsonRpcTransportHandler, ServerCallContext }, { HighwaterA2AHandler }] = await Promise.all([
    import("@a2a-js/sdk/server"),
    import("./handler"),
  ]);
  const options: HandlerOptions = {
    ...TIMING,
    card: agentCard(c.env, new URL(c.req.url).origin),
    pushAllowed: (url) => pushAllowed(c.env as unknown as Record<string, unknown>, url),
  };
  const transport = new JsonRpcTransportHandler(new HighwaterA2AHandler(portOf(c), options));
  const out = await transport.handle(envelope as unknown as Record<string, unknown>, new ServerCallContext());
  if (!(Symbol.asyncIterator in out)) return c.json(out);
  const it = out[Symbol.asyncIterator]();
  // An error before the first event (an unknown task, bad input) is a plain JSON-RPC answer.
  let first: IteratorResult<unknown>;
  try {
    first = await it.next();
  } catch (err) {
    return c.json({ jsonrpc: "2.0", id: envelope.id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
  }
  if (first.done) return c.json({ jsonrpc: "2.0", id: envelope.id, result: null });
  return sseResponse(first.value, it, envelope.id, (err) => JsonRpcTransportHandler.mapToJSONRPCError(err));
}

export function a2aRoutes(app: EdgeApp): void {
  app.get(CARD_PATH, (c) => {
    c.header("access-control-allow-origin", "*");
    c.header("cache-control", "public, max-age=300");
    return c.json(agentCardJson(c));
  });
  app.use("/a2a", corsEdge(), auth(), originGuard(), rateLimit(), bodyLimitEdge());
  app.post("/a2a", answerRpc);
  app.all("/a2a", () => {
    throw new ApiError("method_not_allowed", "POST /a2a only");
  });
}

/** The card as the protocol's JSON (the SDK's own serializer, so every field has its wire name). */
function agentCardJson(c: EdgeContext): unknown {
  return AgentCard.toJSON(agentCard(c.env, new URL(c.req.url).origin));
}
