import { Hono } from "hono";
import { FEATURES } from "../features";
import { auth } from "./auth";
import { bodyLimitEdge } from "./body";
import { CHAT_BODY_LIMIT, chatRoutes } from "./chat";
import { answerError, answerNotFound } from "./errors";
import { oauthCallbackRoute, oauthRoutes } from "./oauth";
import { corsEdge, originGuard } from "./origins";
import { rateLimit } from "./rate-limit";
import { readRoutes } from "./reads";
import { resumeRoutes } from "./resume";
import { sessionLookup } from "./routing";
import { sessionRoutes } from "./sessions";
import { socketRoutes } from "./socket";
import { toolRoutes } from "./tools";
import { turnRoutes } from "./turns";
import type { EdgeEnv } from "./types";

/**
 * The HTTP edge (docs/design.md §2): one middleware per concern in the order of docs/API.md §7.1
 * (CORS, 503/401, 403, 429, 413), then the routes grouped by concern, each answering 405 for
 * the methods it lacks, behind the session lookup; one `onError` builds every error body.
 */
export function createApp() {
  const app = new Hono<EdgeEnv>();

  app.get("/healthz", (c) => c.json({ ok: true }));
  oauthCallbackRoute(app);

  app.use("/v1/*", corsEdge(), auth(), originGuard(), rateLimit(), bodyLimitEdge({ "/v1/chat": CHAT_BODY_LIMIT }));
  app.use("/v1/sessions/:id", sessionLookup());
  app.use("/v1/sessions/:id/*", sessionLookup());

  sessionRoutes(app);
  turnRoutes(app);
  readRoutes(app);
  socketRoutes(app);
  resumeRoutes(app);
  for (const feature of FEATURES) feature.routes?.(app);
  toolRoutes(app);
  oauthRoutes(app);
  chatRoutes(app);

  app.notFound(answerNotFound);
  app.onError(answerError);
  return app;
}
