import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ToolInfo } from "../contract";
import type { Caller, SessionObject } from "../session";

/** What the edge's middleware hands to the routes. */
export type EdgeVariables = {
  /** sha256 of the bearer token, or the principal a ticket names. */
  principal: string;
  /** Set by auth when a WebSocket ticket (not a bearer token) authenticated the request. */
  viaTicket: boolean;
  /** Set by the body limit when the request body could not be read (a broken stream). */
  bodyUnreadable: boolean;
  /** The session named by the path, set by the session lookup on `/v1/sessions/:id/*`; the object checks the owner. */
  session: DurableObjectStub<SessionObject>;
  /** The `RATE_LIMIT_PER_MINUTE` in force, set by the rate limit; a WebSocket's frames count against it too. */
  ratePerMinute: number | undefined;
  /** Set once a route has called the session object (which then decided ownership itself). */
  askedObject: boolean;
};

export type EdgeEnv = { Bindings: Env; Variables: EdgeVariables };
export type EdgeContext = Context<EdgeEnv>;
export type EdgeApp = Hono<EdgeEnv>;
export type EdgeMiddleware = MiddlewareHandler<EdgeEnv>;

/** The edge's plug (docs/design.md#plugs): a feature's routes, mounted behind the session lookup. */
export type EdgeFeature = {
  readonly name: string;
  /** Mounts the feature's routes (behind the session lookup, before the app's 404). */
  readonly routes?: (app: EdgeApp) => void;
  /** Bodies its routes take beyond the standard limit, by path pattern (`/v1/x/*`), drained the same way. */
  readonly bodyLimits?: Readonly<Record<string, { maxBytes: number; message: string }>>;
  /**
   * Mounts routes that prove their caller themselves (a platform's signed webhook, a notification's
   * single-purpose token), before the bearer check, CORS and the rate limit, like `/healthz`. Each
   * must refuse an unproven request.
   */
  readonly publicRoutes?: (app: EdgeApp) => void;
  /** A problem with the feature's settings in the Worker's vars: every `/v1` request is 503 `not_configured` naming it. */
  readonly configProblem?: (env: Record<string, unknown>) => string | null;
  /**
   * The tools the feature gives a new session now that come from the Worker's vars rather than its
   * static tools (an A2A agent's): listed by `GET /v1/tools`, and a session's `tools` may name them.
   */
  readonly listedTools?: (env: Record<string, unknown>) => readonly ToolInfo[];
};

/** The per-principal directory object: it creates and lists, and is on no other request's path. */
export function directoryOf(env: Env, principal: string) {
  return env.DIRECTORY.get(directoryIdOf(env, principal));
}

/** The id of a principal's directory object (recorded by the sessions it creates, for their children). */
export function directoryIdOf(env: Env, principal: string) {
  return env.DIRECTORY.idFromName(`principal:${principal}`);
}

/** Who is calling, as every session-object RPC takes it (the object admits or 404s). */
export function callerOf(c: Context<EdgeEnv>): Caller {
  c.set("askedObject", true);
  return { principal: c.get("principal") };
}
