/**
 * The object's WebSocket side (docs/API.md#live-updates-over-a-websocket): the upgrade of an
 * admitted caller and a client frame answered through the same RPC path as HTTP (the frames every
 * socket gets after a commit or a streamed delta: `sockets.ts`).
 */
import { ApiError, errorBody, type Result } from "../contract/errors";
import type { ClientFrame } from "../contract/frames";
import type { Admitted, Caller } from "./admission";
import type { DecisionInput } from "./commands";
import { readClientFrame } from "./frames";
import { admitRate } from "./rate";
import type { Parsed } from "./reads";
import { replaySocket, type SocketAttachment } from "./sockets";
import { consumeTicket } from "./tickets";

/** What the Worker passed on at the upgrade, after it checked auth, origin and the `after` shape. */
export type Upgrade = { principal: string; ratePerMinute: number; ticket: string | null; after: number };

export function readUpgrade(request: Request): Upgrade {
  const url = new URL(request.url);
  return {
    principal: request.headers.get("x-hw-principal") ?? "",
    ratePerMinute: Number(request.headers.get("x-hw-rate-per-minute") ?? "0"),
    ticket: url.searchParams.get("ticket"),
    after: Number(url.searchParams.get("after") ?? "0"),
  };
}

/** The upgrade of an admitted caller: a `ready` frame, then the backlog in pages after this answer. */
export function acceptSocket(ctx: DurableObjectState, upgrade: Upgrade, admit: (caller: Caller) => Admitted): Response {
  const { principal, ratePerMinute, ticket, after } = upgrade;
  let admitted: Admitted;
  try {
    admitted = admit({ principal });
  } catch (err) {
    if (err instanceof ApiError) return errorResponse(err.code, err.message);
    throw err;
  }
  const { runtime, store, sql } = admitted;
  if (ticket !== null && !consumeTicket(sql, ticket, principal)) return errorResponse("unauthorized", "invalid ticket");
  if (after > store.head().highWater) return errorResponse("bad_request", "after: beyond highWater");
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  ctx.acceptWebSocket(server);
  const attachment: SocketAttachment = { principal, cursor: after, ...(ratePerMinute > 0 ? { ratePerMinute } : {}) };
  server.serializeAttachment(attachment);
  server.send(JSON.stringify({ type: "ready", session: runtime.session() }));
  // docs/design.md: the backlog goes out in bounded pages with turns between them.
  ctx.waitUntil(
    replaySocket(server, store, {
      onCaughtUp: (missedSession) => {
        if (missedSession) server.send(JSON.stringify({ type: "session", session: runtime.session() }));
        // Once caught up, the text streamed so far of a call in flight.
        for (const frame of runtime.inflightReplay()) server.send(JSON.stringify({ type: "delta", ...frame }));
      },
    }),
  );
  return new Response(null, { status: 101, webSocket: client });
}

/**
 * A client frame, malformed or not, is a request like any other: it counts against the
 * principal's rate (docs/API.md#authentication-and-errors), past it is refused and changes
 * nothing, and a valid one is answered by `call` with an `ack` or an `error` frame.
 */
export async function answerFrame(
  ws: WebSocket,
  env: Env,
  message: string | ArrayBuffer,
  calls: FrameCalls,
): Promise<void> {
  const send = (frame: unknown) => ws.send(JSON.stringify(frame));
  const read = readClientFrame(message);
  const attachment = ws.deserializeAttachment() as SocketAttachment | null;
  const rate = attachment?.ratePerMinute;
  if (rate && !(await admitRate(env, attachment.principal, rate)))
    return send({
      type: "error",
      ...(read.ok && read.id !== undefined ? { id: read.id } : {}),
      ...errorBody("rate_limited", `over ${rate} requests per minute`),
    });
  if (!read.ok) return send(read.error);
  const { id, frame } = read;
  // The socket was admitted for its principal when it connected; each frame is admitted again.
  const result = await callFor(calls, { principal: attachment?.principal ?? "" }, frame);
  if (result.ok) {
    if (id !== undefined) send({ type: "ack", id, result: result.value });
  } else
    send({ type: "error", ...(id !== undefined ? { id } : {}), ...errorBody(result.error.code, result.error.message) });
}

/** The object's RPC methods a client frame is answered by: each frame is the same call as its HTTP route. */
type FrameCalls = {
  postMessage(
    caller: Caller,
    input: { text: string; idempotencyKey?: string; source: string },
  ): Promise<Result<unknown>>;
  stop(caller: Caller): Promise<Result<unknown>>;
  decide(caller: Caller, requestId: string, parsed: Parsed<DecisionInput>): Promise<Result<unknown>>;
};

function callFor(calls: FrameCalls, caller: Caller, frame: ClientFrame): Promise<Result<unknown>> {
  if (frame.type === "message")
    return calls.postMessage(caller, { text: frame.text, idempotencyKey: frame.idempotencyKey, source: "ws" });
  if (frame.type === "stop") return calls.stop(caller);
  const { decision, reason, argsDigest } = frame;
  const value = {
    decision,
    ...(reason !== undefined ? { reason } : {}),
    ...(argsDigest !== undefined ? { argsDigest } : {}),
  };
  return calls.decide(caller, frame.requestId, { ok: true, value });
}

export function errorResponse(code: ConstructorParameters<typeof ApiError>[0], message: string): Response {
  return Response.json(errorBody(code, message), { status: new ApiError(code, message).status });
}
