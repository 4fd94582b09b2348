import { ApiError } from "../contract";
import { sha256Hex } from "../log";
import { TICKET } from "../session/tickets";
import { toolConfigProblem } from "../tools/deployment";
import { sessionStub } from "./routing";
import type { EdgeMiddleware } from "./types";

/** Token → principal id: the sha256 of the token (tokens are only ever compared as hashes). */
export function principalOf(token: string): string {
  return sha256Hex(token);
}

const principalSets = new Map<string, ReadonlySet<string>>();

/** The principals of `API_TOKENS`, hashed once per distinct value. */
function principals(raw: string | undefined): ReadonlySet<string> {
  const key = raw ?? "";
  let set = principalSets.get(key);
  if (!set) {
    set = new Set(
      key
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean)
        .map(principalOf),
    );
    principalSets.set(key, set);
  }
  return set;
}

/** The only route a ticket opens (browsers cannot set headers on a WebSocket). */
const TICKET_ROUTE = /^\/v1\/sessions\/([^/]+)\/ws$/;
const BEARER = /^Bearer ([^\s]+)$/i;

/**
 * 503 without `API_TOKENS`; else a bearer token, or on the WebSocket route a ticket, or 401.
 * A ticket is checked here, before the Origin (docs/API.md §7.1): a missing, used, expired or
 * wrong-session ticket is 401 whatever the Origin. The session object uses it up later.
 */
export function auth(featureProblem: (env: Env) => string | null = () => null): EdgeMiddleware {
  return async function auth(c, next) {
    const known = principals(c.env.API_TOKENS);
    if (known.size === 0) throw new ApiError("not_configured", "API_TOKENS is not set");
    // Invalid tool settings are refused at the first request, naming the problem (docs/API.md#configuration).
    const tools = toolConfigProblem(c.env) ?? featureProblem(c.env);
    if (tools) throw new ApiError("not_configured", tools);
    const header = c.req.header("authorization");
    const ticket = c.req.query("ticket");
    const ticketRoute = TICKET_ROUTE.exec(c.req.path);
    if (header === undefined && ticket !== undefined && ticketRoute) {
      // An opaque ticket (docs/API.md#live-updates-over-a-websocket) lives in the session object,
      // which minted it for its owner and alone can say whose it is; a malformed one asks no one.
      const session = TICKET.test(ticket) ? sessionStub(c.env, ticketRoute[1]!) : null;
      const principal = session ? await session.ticketHolder(ticket) : null;
      // A token removed from API_TOKENS since the ticket was minted no longer opens anything.
      if (!session || !principal || !known.has(principal)) throw new ApiError("unauthorized", "invalid ticket");
      c.set("principal", principal);
      c.set("viaTicket", true);
      c.set("session", session);
      return next();
    }
    const m = BEARER.exec(header ?? "");
    const principal = m ? principalOf(m[1]!) : null;
    if (!principal || !known.has(principal)) throw new ApiError("unauthorized", "missing or unknown token");
    c.set("principal", principal);
    c.set("viaTicket", false);
    return next();
  };
}
