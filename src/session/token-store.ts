/**
 * The token port of MCP connections (docs/API.md#mcp-servers-behind-oauth) over the token object:
 * one object per principal, one for the deployment (client credentials and pending
 * authorizations, which the unauthenticated callback finds by `state` alone).
 */
import { failpoint } from "../runtime/failpoints";
import type { McpTokenSource } from "../tools/mcp/client";
import type { McpServerConfig } from "../tools/mcp/config";
import { accessToken, DEPLOYMENT_OWNER, forgetGrant, type McpTokenStore, NeedsAuthorization } from "../tools/mcp/oauth";

function stubOf(env: Env, owner: string) {
  const ns = env.TOKENS;
  if (!ns) throw new Error("the TOKENS Durable Object binding is missing");
  return ns.get(ns.idFromName(`tokens:${owner}`));
}

export function tokenStoreOf(env: Env): McpTokenStore {
  return {
    get: (owner, server) => stubOf(env, owner).get(owner, server),
    put: (owner, server, grant) => stubOf(env, owner).put(owner, server, grant),
    delete: async (owner, server) => stubOf(env, owner).delete(owner, server),
    putPending: (state, pending) => stubOf(env, DEPLOYMENT_OWNER).putPending(state, pending),
    takePending: (state) => stubOf(env, DEPLOYMENT_OWNER).takePending(state),
  };
}

/** The tokens of `principal` (read when a request is sent: a session object knows its owner late). */
export function tokenSourceOf(env: Env, principal: () => string | null, fetchFn: typeof fetch): McpTokenSource {
  const vars = env as unknown as Record<string, unknown>;
  const secret = (name: string) => (typeof vars[name] === "string" ? (vars[name] as string) : undefined);
  const deps = () => ({
    fetch: fetchFn,
    secret,
    store: tokenStoreOf(env),
    now: Date.now,
    failpoint: (id: "F20" | "F21") => failpoint(env, id),
  });
  // One lookup (and refresh) at a time per server: the SDK sends requests side by side, and a
  // refresh token used twice is refused by servers that rotate them.
  const inFlight = new Map<string, Promise<string>>();
  return {
    token: async (server: McpServerConfig) => {
      const who = principal();
      if (!who && server.auth?.grant !== "client_credentials") throw new NeedsAuthorization(server.name);
      let pending = inFlight.get(server.name);
      if (!pending) {
        pending = accessToken(server, who ?? DEPLOYMENT_OWNER, deps()).finally(() => inFlight.delete(server.name));
        inFlight.set(server.name, pending);
      }
      return pending;
    },
    refused: (server: McpServerConfig) => forgetGrant(server, principal() ?? DEPLOYMENT_OWNER, deps()),
  };
}
