import { Hono } from "hono";
import { MAX_SKILL_BODY_BYTES } from "../contract";
import { exportStatus } from "../telemetry/export";
import { auth } from "./auth";
import { bodyLimitEdge } from "./body";
import { CHAT_BODY_LIMIT, chatRoutes } from "./chat";
import { answerError, answerNotFound } from "./errors";
import { oauthCallbackRoute, oauthRoutes } from "./oauth";
import { corsEdge, originGuard } from "./origins";
import { rateLimit } from "./rate-limit";
import { readRoutes } from "./reads";
import { sessionLookup } from "./routing";
import { sessionRoutes } from "./sessions";
import { socketRoutes } from "./socket";
import { toolRoutes } from "./tools";
import { turnRoutes } from "./turns";
import type { EdgeEnv, EdgeFeature } from "./types";

/**
 * The HTTP edge (docs/design.md §2): one middleware per concern in the order of docs/API.md §7.1
 * (CORS, 503/401, 403, 429, 413), then the routes grouped by concern, each answering 405 for
 * the methods it lacks, behind the session lookup, the features' routes among them (in list
 * order); one `onError` builds every error body.
 */
/** A skill's text is JSON-escaped in its PUT body: room for 1 MiB of it (docs/API.md#skills). */
const SKILL_BODY_LIMIT = { maxBytes: MAX_SKILL_BODY_BYTES, message: `body over ${MAX_SKILL_BODY_BYTES} bytes` };

export function createApp(features: readonly EdgeFeature[] = []) {
  const app = new Hono<EdgeEnv>();

  // docs/API.md#sending-traces-to-a-collector: a bad telemetry setting is said here, not fatal.
  app.get("/healthz", (c) =>
    c.json({ ok: true, traceExport: exportStatus(c.env as unknown as Record<string, unknown>) }),
  );
  oauthCallbackRoute(app);
  for (const feature of features) feature.publicRoutes?.(app);

  app.use(
    "/v1/*",
    corsEdge(),
    auth(),
    originGuard(),
    rateLimit(),
    bodyLimitEdge({ "/v1/chat": CHAT_BODY_LIMIT, "/v1/skills/*": SKILL_BODY_LIMIT }),
  );
  app.use("/v1/sessions/:id", sessionLookup());
  app.use("/v1/sessions/:id/*", sessionLookup());

  sessionRoutes(app);
  turnRoutes(app);
  readRoutes(app);
  socketRoutes(app);
  for (const feature of features) feature.routes?.(app);
  toolRoutes(app);
  oauthRoutes(app);
  chatRoutes(app);

  app.notFound(answerNotFound);
  app.onError(answerError);
  return app;
}
