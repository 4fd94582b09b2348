/**
 * OAuth for MCP servers at the edge (docs/API.md#mcp-servers-behind-oauth):
 * `POST /v1/mcp/:server/authorize` → `{ url }` for the caller to open, and
 * `GET /v1/oauth/callback`, unauthenticated (the authorization server redirects a browser there),
 * which finishes it by its `state` alone and answers a small page with a link back to the console.
 * Neither answer holds a token.
 */
import { ApiError } from "../contract";
import { failpoint } from "../runtime/failpoints";
import { tokenStoreOf } from "../session/token-store";
import { toolConfigProblem } from "../tools/deployment";
import { beginAuthorization, finishAuthorization, mcpConfigOf } from "../tools/mcp";
import { resource } from "./routing";
import type { EdgeApp, EdgeContext } from "./types";

export const OAUTH_CALLBACK_PATH = "/v1/oauth/callback";

const depsOf = (env: Env) => {
  const vars = env as unknown as Record<string, unknown>;
  return {
    fetch: (i: RequestInfo | URL, init?: RequestInit) => fetch(i, init),
    secret: (name: string) => (typeof vars[name] === "string" ? (vars[name] as string) : undefined),
    store: tokenStoreOf(env),
    now: Date.now,
    failpoint: (id: "F20" | "F21") => failpoint(env, id),
  };
};

/** `POST /v1/mcp/:server/authorize` (behind the edge's auth). */
export function oauthRoutes(app: EdgeApp): void {
  resource(app, "/v1/mcp/:server/authorize", {
    POST: async (c) => {
      const config = mcpConfigOf(c.env);
      const name = c.req.param("server");
      const server = config.ok ? config.servers.find((s) => s.name === name) : undefined;
      if (!server) throw new ApiError("not_found", "no MCP server of this name is configured");
      if (!server.auth) throw new ApiError("bad_request", `MCP server ${server.name} does not use OAuth`);
      if (server.auth.grant === "client_credentials")
        throw new ApiError("bad_request", `MCP server ${server.name} uses client credentials: nothing to authorize`);
      const redirectUri = new URL(OAUTH_CALLBACK_PATH, c.req.url).toString();
      try {
        return c.json(await beginAuthorization(server, c.get("principal"), redirectUri, depsOf(c.env)));
      } catch (err) {
        console.warn(`highwater: MCP server ${server.name}: authorization could not start (${(err as Error).name})`);
        throw new ApiError(
          "bad_request",
          `MCP server ${server.name}: its authorization server could not be discovered or registered with`,
        );
      }
    },
  });
}

/** `GET /v1/oauth/callback`: registered before the edge's auth (the route is public). */
export function oauthCallbackRoute(app: EdgeApp): void {
  app.get(OAUTH_CALLBACK_PATH, async (c) => {
    const problem = toolConfigProblem(c.env);
    if (problem) throw new ApiError("not_configured", problem);
    const state = c.req.query("state");
    const code = c.req.query("code");
    if (!state) return page(c, 400, "This sign-in link is incomplete.");
    const config = mcpConfigOf(c.env);
    if (!code) {
      // Refused or cancelled at the authorization server: the state is used up all the same.
      await tokenStoreOf(c.env).takePending(state);
      return page(c, 400, "The authorization was not granted.");
    }
    const done = await finishAuthorization(config.ok ? config.servers : [], state, code, depsOf(c.env));
    if (!done.ok) return page(c, 400, `Not connected: ${done.reason}.`);
    return page(c, 200, `Connected ${done.server}.`);
  });
}

function page(c: EdgeContext, status: 200 | 400, text: string): Response {
  const safe = text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  // A link back to the console (same origin), where `GET /v1/tools` now lists the server.
  return c.html(
    `<!doctype html><meta charset="utf-8"><title>highwater</title><p>${safe}</p><p><a href="/">Return to the console</a></p>`,
    status,
  );
}
