import { Hono } from "hono";
import { exportStatus } from "../telemetry/export";
import { auth } from "./auth";
import { bodyLimitEdge } from "./body";
import { CHAT_BODY_LIMIT, chatRoutes } from "./chat";
import { oauthCallbackRoute, oauthRoutes } from "./oauth";
import { corsEdge, originGuard } from "./origins";
import { rateLimit } from "./rate-limit";
import { readRoutes } from "./reads";
import { answerError, answerNotFound, sessionLookup } from "./routing";
import { sessionRoutes } from "./sessions";
import { socketRoutes } from "./socket";
import { installListedTools, toolRoutes } from "./tools";
import { turnRoutes } from "./turns";
import type { EdgeEnv, EdgeFeature } from "./types";

/**
 * The HTTP edge (docs/design.md §2): one middleware per concern in the order of docs/API.md §7.1
 * (CORS, 503/401, 403, 429, 413), then the routes grouped by concern, each answering 405 for
 * the methods it lacks, behind the session lookup, the features' routes among them (in list
 * order); one `onError` builds every error body.
 */

export function createApp(features: readonly EdgeFeature[] = []) {
  const app = new Hono<EdgeEnv>();
  installListedTools(features);

  // docs/API.md#sending-traces-to-a-collector: a bad telemetry setting is said here, not fatal.
  app.get("/healthz", (c) =>
    c.json({ ok: true, traceExport: exportStatus(c.env as unknown as Record<string, unknown>) }),
  );
  oauthCallbackRoute(app);
  for (const feature of features) feature.publicRoutes?.(app);

  const problems = (env: Env) => {
    for (const f of features) {
      const problem = f.configProblem?.(env as unknown as Record<string, unknown>);
      if (problem) return problem;
    }
    return null;
  };
  app.use(
    "/v1/*",
    corsEdge(),
    auth(problems),
    originGuard(),
    rateLimit(),
    bodyLimitEdge(Object.assign({ "/v1/chat": CHAT_BODY_LIMIT }, ...features.map((f) => f.bodyLimits ?? {}))),
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
