/**
 * `/mcp` (docs/API.md#a-session-as-an-mcp-server): Streamable HTTP served by the official SDK's
 * stateless handler, one server per request, behind the same CORS, bearer auth, rate limit and
 * body limit as `/v1`. An `Origin` that is neither the Worker's own nor in `ALLOWED_ORIGINS` is
 * refused as the SDK refuses one (403, JSON-RPC error -32000), before any JSON-RPC is read.
 */
import { ApiError, unwrap } from "../../contract";
import { auth } from "../../http/auth";
import { bodyLimitEdge } from "../../http/body";
import { corsEdge, isAllowedOrigin } from "../../http/origins";
import { rateLimit } from "../../http/rate-limit";
import { sessionStub } from "../../http/routing";
import { PostMessage, parseInput } from "../../http/schemas";
import { createSession, listSessions } from "../../http/sessions";
import { callerOf, type EdgeApp, type EdgeContext } from "../../http/types";
import type { Session } from "../../projections";
import type { Port } from "./server";
import type { TaskState } from "./task-state";
import type { TaskRef } from "./tasks";

export const FEATURE = "mcp-server";
const SETTLE_POLL_MS = 250;

function stubOf(c: EdgeContext, sessionId: string) {
  const stub = sessionStub(c.env, sessionId);
  if (!stub) throw new ApiError("not_found", "session not found");
  return stub;
}

/** The tools' port: the calls the HTTP routes make, for the caller of this request. */
function portOf(c: EdgeContext): Port {
  const post = async (sessionId: string, text: string, key: string | undefined): Promise<TaskRef> => {
    const body = parseInput(PostMessage, { text, ...(key ? { idempotencyKey: key } : {}) });
    const r = unwrap(await stubOf(c, sessionId).postMessage(callerOf(c), { ...body, source: "mcp" })) as {
      turnId: string;
      seq: number;
    };
    return { sessionId, turnId: r.turnId, seq: r.seq };
  };
  const task = async (ref: TaskRef) =>
    unwrap(await stubOf(c, ref.sessionId).call(callerOf(c), FEATURE, "task", ref)) as TaskState;
  return {
    async start(input, key) {
      parseInput(PostMessage, { text: input.text });
      const opts = {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.model ? { model: input.model } : {}),
      };
      if (!key) return post((await createSession(c, opts)).id, input.text, undefined);
      // A keyed start names its session by the caller and the key: a retry finds it and posts the
      // same message under the same key, so it starts nothing twice (docs/API.md#idempotency).
      const id = c.env.SESSIONS.idFromName(`mcp:${c.get("principal")}:${key}`);
      const existing = await c.env.SESSIONS.get(id).getSession(callerOf(c));
      if (!existing.ok) {
        try {
          await createSession(c, opts, id);
        } catch (err) {
          if (!(err instanceof ApiError && err.code === "conflict")) throw err;
          // Another call created it meanwhile; its registration stays (the refused create took it back).
          await c.env.DIRECTORY.get(c.env.DIRECTORY.idFromName(`principal:${c.get("principal")}`)).add(
            id.toString(),
            null,
            new Date().toISOString(),
          );
        }
      }
      return post(id.toString(), input.text, key);
    },
    send: post,
    session: async (id) => unwrap(await stubOf(c, id).getSession(callerOf(c))),
    transcript: async (id, limit) => unwrap(await stubOf(c, id).transcript(callerOf(c), { after: 0, limit })),
    decide: async (id, requestId, body) =>
      unwrap(await stubOf(c, id).decide(callerOf(c), requestId, { ok: true, value: body })) as Session,
    list: (limit, before) => listSessions(c, limit, before),
    task,
    async cancel(ref) {
      const state = await task(ref);
      if (state.state === "working" || state.state === "input_required")
        unwrap(await stubOf(c, ref.sessionId).stop(callerOf(c)));
    },
    async settle(ref, ms) {
      const until = Date.now() + ms;
      for (;;) {
        const state = await task(ref);
        if (state.state !== "working" || Date.now() >= until) return state;
        await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
      }
    },
  };
}

export function mcpRoutes(app: EdgeApp): void {
  app.use("/mcp", corsEdge(), auth(), rateLimit(), bodyLimitEdge());
  app.all("/mcp", async (c) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !isAllowedOrigin(c, origin))
      return c.json({ jsonrpc: "2.0", error: { code: -32000, message: `Invalid Origin: ${origin}` }, id: null }, 403);
    // The SDK is loaded by the first /mcp request, not by the Worker's start (nor by every other route's).
    const [{ createMcpHandler }, { buildServer }] = await Promise.all([
      import("@modelcontextprotocol/server"),
      import("./server"),
    ]);
    const handler = createMcpHandler(() => buildServer(portOf(c)), { responseMode: "json" });
    try {
      return await handler.fetch(c.req.raw);
    } finally {
      c.executionCtx.waitUntil(handler.close());
    }
  });
}
