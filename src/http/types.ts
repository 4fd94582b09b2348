import type { Context, Hono, MiddlewareHandler } from "hono";
import type { SessionObject } from "../session";

/** What the edge's middleware hands to the routes. */
export type EdgeVariables = {
  /** sha256 of the bearer token, or the principal a ticket names. */
  principal: string;
  /** Set by auth when a WebSocket ticket (not a bearer token) authenticated the request. */
  viaTicket: boolean;
  /** Set by the body limit when the request body could not be read (a broken stream). */
  bodyUnreadable: boolean;
  /** The caller's session, set by the session lookup on `/v1/sessions/:id/*`. */
  session: DurableObjectStub<SessionObject>;
};

export type EdgeEnv = { Bindings: Env; Variables: EdgeVariables };
export type EdgeContext = Context<EdgeEnv>;
export type EdgeApp = Hono<EdgeEnv>;
export type EdgeMiddleware = MiddlewareHandler<EdgeEnv>;

/** The per-principal directory object (ownership and the request rate). */
export function directoryOf(env: Env, principal: string) {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName(`principal:${principal}`));
}
