import { type Context, Hono } from "hono";
import type { z } from "zod";
import { computeThreshold, MIN_THRESHOLD } from "../context";
import { sha256Hex } from "../log";
import { type ModelConfig, resolveDefaultModel } from "../model";
import type { Session } from "../projections";
import { ApiError, type Result } from "../runtime/errors";
import { BUILTIN_TOOLS, normalizeWorkspacePath, validateApprovalRules } from "../tools";
import { describeIssues, MAX_TEXT_BYTES, utf8Bytes } from "./frames";
import { mergeModel } from "./model-options";
import {
  ArchiveQuery,
  Decision,
  EventsQuery,
  ListQuery,
  PatchSession,
  PostMessage,
  REQUEST_ID,
  SESSION_ID,
  SessionOptions,
  SHA256,
  WsQuery,
} from "./schemas";

export const MAX_BODY_BYTES = 1_048_576;

type Vars = { principal: string; body: unknown; session: DurableObjectStub<import("../session").SessionObject> };
type C = Context<{ Bindings: Env; Variables: Vars }>;

/** Routes under /v1 with the methods they accept: anything else on a known path is 405. */
const ROUTES: [RegExp, string[]][] = [
  [/^\/v1\/sessions$/, ["GET", "POST"]],
  [/^\/v1\/sessions\/[^/]+$/, ["GET", "PATCH"]],
  [/^\/v1\/sessions\/[^/]+\/(messages|stop|tickets)$/, ["POST"]],
  [/^\/v1\/sessions\/[^/]+\/approvals\/[^/]+$/, ["POST"]],
  [/^\/v1\/sessions\/[^/]+\/(events|transcript|context|verify|export|files|ws)$/, ["GET"]],
  [/^\/v1\/sessions\/[^/]+\/archive\/[^/]+$/, ["GET"]],
  [/^\/v1\/sessions\/[^/]+\/files\/.+$/, ["GET"]],
];

function allowedOrigins(env: Env): string[] {
  return (env.ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function originAllowed(c: C, origin: string): boolean {
  return origin === new URL(c.req.url).origin || allowedOrigins(c.env).includes(origin);
}

/** Token → principal id: the sha256 of the token (tokens are only ever compared as hashes). */
export function principalOf(token: string): string {
  return sha256Hex(token);
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what = "body"): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError("bad_request", `${what === "body" ? "" : `${what}: `}${describeIssues(r.error)}`);
  return r.data;
}

function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw new ApiError(r.error.code, r.error.message);
  return r.value;
}

/** Reads the body with the 1 MiB cap: from Content-Length before reading, else while reading. */
async function readBody(req: Request): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (declared > MAX_BODY_BYTES) {
    await req.body?.cancel();
    throw new ApiError("payload_too_large", `body over ${MAX_BODY_BYTES} bytes`);
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ApiError("payload_too_large", `body over ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    all.set(ch, at);
    at += ch.byteLength;
  }
  return new TextDecoder().decode(all);
}

function directory(env: Env, principal: string) {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${principal}`));
}

function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

export function createApp() {
  const app = new Hono<{ Bindings: Env; Variables: Vars }>();

  app.get("/healthz", (c) => c.json({ ok: true }));

  // CORS preflight for allowed origins: answers before auth (browsers send no token on it).
  app.options("/v1/*", (c) => {
    const origin = c.req.header("origin");
    if (!origin || !originAllowed(c, origin)) throw new ApiError("forbidden", "origin not allowed");
    return c.body(null, 204, {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, PATCH, OPTIONS",
      "access-control-allow-headers": "authorization, content-type",
      "access-control-max-age": "600",
      vary: "origin",
    });
  });

  // The checks every /v1 request passes, in the contract's order.
  app.use("/v1/*", async (c, next) => {
    const tokens = (c.env.API_TOKENS ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    if (tokens.length === 0) throw new ApiError("not_configured", "API_TOKENS is not set");
    const url = new URL(c.req.url);
    const ticket = url.searchParams.get("ticket");
    const auth = c.req.header("authorization");
    const isWs = /^\/v1\/sessions\/[^/]+\/ws$/.test(url.pathname);
    if (isWs && ticket !== null && !auth) {
      // A ticket names its principal; the session object checks the ticket itself.
      // A ticket names its principal, which must be a configured one; the session object
      // checks the ticket itself (single use, 60 s, this session).
      const principal = ticket.split(".")[0] ?? "";
      if (!tokens.some((t) => principalOf(t) === principal)) throw new ApiError("unauthorized", "invalid ticket");
      c.set("principal", principal);
      const origin = c.req.header("origin");
      if (!origin || !originAllowed(c, origin)) throw new ApiError("forbidden", "a ticket needs an allowed Origin");
    } else {
      const m = /^Bearer ([^\s]+)$/i.exec(auth ?? "");
      const hashed = m ? principalOf(m[1]!) : null;
      if (!hashed || !tokens.some((t) => principalOf(t) === hashed))
        throw new ApiError("unauthorized", "missing or unknown token");
      c.set("principal", hashed);
    }
    const origin = c.req.header("origin");
    if (origin && !originAllowed(c, origin)) throw new ApiError("forbidden", "origin not allowed");
    const text = await readBody(c.req.raw);
    const route = ROUTES.find(([re]) => re.test(url.pathname));
    if (!route) throw new ApiError("not_found", "unknown route");
    const sessionMatch = /^\/v1\/sessions\/([^/]+)/.exec(url.pathname);
    if (sessionMatch) {
      const id = sessionMatch[1]!;
      if (!SESSION_ID.test(id) || !(await directory(c.env, c.get("principal")).has(id))) {
        // A ticket is bound to one session: for any other it is simply not valid.
        if (isWs && ticket !== null && !auth) throw new ApiError("unauthorized", "invalid ticket");
        throw new ApiError("not_found", "session not found");
      }
      c.set("session", c.env.SESSIONS.get(c.env.SESSIONS.idFromString(id)));
    }
    if (!route[1].includes(c.req.method)) throw new ApiError("method_not_allowed", `${c.req.method} not allowed here`);
    if (text.trim() === "") c.set("body", undefined);
    else {
      try {
        c.set("body", JSON.parse(text));
      } catch {
        throw new ApiError("bad_request", "body is not valid JSON");
      }
    }
    await next();
    // CORS does not apply to a WebSocket upgrade; other answers may come from the object with immutable headers.
    if (origin && c.res.status !== 101) {
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("access-control-allow-origin", origin);
      c.res.headers.append("vary", "origin");
    }
  });

  /** Body for routes that take none: empty or `{}`. */
  const noBody = (c: C) => {
    const b = c.get("body");
    if (b !== undefined && (typeof b !== "object" || b === null || Array.isArray(b) || Object.keys(b).length > 0))
      throw new ApiError("bad_request", "this route takes no body");
  };
  const query = (c: C) => Object.fromEntries(new URL(c.req.url).searchParams);

  const rateLimit = async (c: C) => {
    const limit = Number(c.env.RATE_LIMIT_PER_MINUTE);
    if (!limit || limit <= 0) return;
    if (!(await directory(c.env, c.get("principal")).hit(limit)))
      throw new ApiError("rate_limited", `over ${limit} requests per minute`);
  };

  app.post("/v1/sessions", async (c) => {
    const opts = parse(SessionOptions, c.get("body") ?? {});
    const known = Object.keys(BUILTIN_TOOLS);
    const unknownTool = opts.tools?.find((t) => !known.includes(t));
    if (unknownTool) throw new ApiError("bad_request", `tools: unknown tool ${unknownTool}`);
    const ruleError = validateApprovalRules(opts.approvals ?? [], opts.tools ?? known);
    if (ruleError) throw new ApiError("bad_request", `approvals: ${ruleError}`);
    const model = resolveModel(c.env, opts.model);
    const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
    if (threshold < MIN_THRESHOLD)
      throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
    await rateLimit(c);
    const id = c.env.SESSIONS.newUniqueId();
    const stub = c.env.SESSIONS.get(id, opts.locationHint ? { locationHint: opts.locationHint } : undefined);
    const session = unwrap((await stub.create({ options: opts, model, parentId: null })) as Result<Session>);
    await directory(c.env, c.get("principal")).add(session.id, null, session.createdAt);
    return c.json(session, 201);
  });

  app.get("/v1/sessions", async (c) => {
    const q = parse(ListQuery, query(c), "query");
    await rateLimit(c);
    const page = await directory(c.env, c.get("principal")).list(q.limit ?? 50, q.before);
    const sessions = await Promise.all(
      page.ids.map(async (id) => {
        const r = (await c.env.SESSIONS.get(c.env.SESSIONS.idFromString(id)).getSession()) as Result<Session>;
        return r.ok ? r.value : null;
      }),
    );
    return c.json({
      sessions: sessions.filter((s): s is Session => s !== null),
      ...(page.next ? { next: page.next } : {}),
    });
  });

  app.get("/v1/sessions/:id", async (c) => {
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").getSession()));
  });

  app.patch("/v1/sessions/:id", async (c) => {
    const body = parse(PatchSession, c.get("body") ?? {});
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").patch(body)));
  });

  app.post("/v1/sessions/:id/messages", async (c) => {
    const raw = c.get("body") as { text?: unknown } | undefined;
    if (typeof raw?.text === "string" && utf8Bytes(raw.text) > MAX_TEXT_BYTES)
      throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
    const body = parse(PostMessage, raw);
    await rateLimit(c);
    const answer = unwrap(await c.get("session").postMessage({ ...body, source: "http" }));
    return c.json(answer, 202);
  });

  app.post("/v1/sessions/:id/stop", async (c) => {
    noBody(c);
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").stop()));
  });

  app.post("/v1/sessions/:id/approvals/:requestId", async (c) => {
    const requestId = c.req.param("requestId");
    if (!REQUEST_ID.test(requestId)) throw new ApiError("not_found", "unknown approval");
    const body = parse(Decision, c.get("body"));
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").decide({ requestId, ...body })));
  });

  app.get("/v1/sessions/:id/events", async (c) => {
    const q = parse(EventsQuery, query(c), "query");
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").readEvents(q.after ?? 0, q.limit ?? 500)));
  });

  app.get("/v1/sessions/:id/transcript", async (c) => {
    await rateLimit(c);
    const after = c.req.query("after");
    const limit = c.req.query("limit");
    // The object validates the numbers (it answers 404 for an unknown session first).
    const page = { after: after === undefined ? 0 : Number(after), limit: limit === undefined ? 200 : Number(limit) };
    return c.json(unwrap(await c.get("session").transcript(page)));
  });

  app.get("/v1/sessions/:id/context", async (c) => {
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").context()));
  });

  app.get("/v1/sessions/:id/verify", async (c) => {
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").verify()));
  });

  app.get("/v1/sessions/:id/export", async (c) => {
    await rateLimit(c);
    const stub = c.get("session");
    const first = unwrap(await stub.exportPage(0, 500));
    const encoder = new TextEncoder();
    let cursor = first.last;
    let done = first.done;
    let pending: string | null = first.text;
    // Paged from the object, so neither side holds the whole log.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pending !== null) {
          controller.enqueue(encoder.encode(pending));
          pending = null;
          if (done) controller.close();
          return;
        }
        const page = unwrap(await stub.exportPage(cursor, 500));
        if (page.text) controller.enqueue(encoder.encode(page.text));
        cursor = page.last;
        done = page.done;
        if (done) controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
  });

  app.get("/v1/sessions/:id/archive/:sha256", async (c) => {
    const sha = c.req.param("sha256");
    if (!SHA256.test(sha)) throw new ApiError("not_found", "unknown archive ref");
    const q = parse(ArchiveQuery, query(c), "query");
    await rateLimit(c);
    const r = unwrap(await c.get("session").archive(sha, q.offset ?? 0, q.limit));
    return new Response(r.bytes, {
      headers: { "content-type": r.mediaType, "x-archive-bytes": String(r.total) },
    });
  });

  app.get("/v1/sessions/:id/files", async (c) => {
    await rateLimit(c);
    const limit = c.req.query("limit");
    const page = { after: c.req.query("after") ?? null, limit: limit === undefined ? 1000 : Number(limit) };
    return c.json(unwrap(await c.get("session").files(page)));
  });

  app.get("/v1/sessions/:id/files/*", async (c) => {
    const raw = new URL(c.req.url).pathname.replace(/^\/v1\/sessions\/[^/]+\/files\//, "");
    const norm = normalizeWorkspacePath(raw);
    if (!norm.ok) throw new ApiError("bad_request", `path: ${norm.message}`);
    await rateLimit(c);
    const content = unwrap(await c.get("session").file(norm.path));
    return c.text(content, 200, { "content-type": "text/plain; charset=utf-8" });
  });

  app.post("/v1/sessions/:id/tickets", async (c) => {
    noBody(c);
    await rateLimit(c);
    return c.json(unwrap(await c.get("session").createTicket(c.get("principal"))), 201);
  });

  app.get("/v1/sessions/:id/ws", async (c) => {
    const q = parse(WsQuery, query(c), "query");
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
      throw new ApiError("bad_request", "expected a WebSocket upgrade");
    await rateLimit(c);
    const url = new URL(c.req.url);
    url.search = "";
    url.searchParams.set("after", String(q.after ?? 0));
    if (q.ticket) url.searchParams.set("ticket", q.ticket);
    const headers = new Headers({ upgrade: "websocket", "x-hw-principal": c.get("principal") });
    return c.get("session").fetch(new Request(url.toString(), { headers }));
  });

  app.notFound((c) => c.json(errorBody("not_found", "unknown route"), 404));

  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(errorBody(err.code, err.message), err.status as 400);
    console.error("highwater: internal error", err);
    return c.json(errorBody("internal", "internal error"), 500);
  });

  return app;
}

/** The model for a new session: Worker defaults with the session's overrides. */
export function resolveModel(env: Env, override?: Partial<ModelConfig>): ModelConfig {
  return mergeModel(resolveDefaultModel(env), override ?? {});
}
