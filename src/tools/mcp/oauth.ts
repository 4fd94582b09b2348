/**
 * OAuth 2.1 for MCP servers (docs/API.md#mcp-servers-behind-oauth), over the SDK's helpers:
 * discovery (RFC 9728 protected-resource metadata, from the server's 401 `WWW-Authenticate` or its
 * well-known path, then RFC 8414 / OIDC authorization-server metadata), dynamic registration
 * (RFC 7591) or the configured client id, PKCE, the code exchange, refresh and client credentials.
 * Grants live behind the `McpTokenStore` port (an object of their own, encrypted at rest); this
 * module never logs or returns a token except to the connection that sends it.
 */

import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/client";
import {
  exchangeAuthorization,
  fetchToken,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/client";
import { oauthFetch } from "./bounded-fetch";
import type { McpConnectionDeps } from "./client";
import type { McpServerConfig } from "./config";
import { discover } from "./oauth-discovery";
import {
  AUTHORIZE_TTL_MS,
  DEPLOYMENT_OWNER,
  type McpTokenStore,
  NeedsAuthorization,
  type PendingAuthorization,
  REFRESH_MARGIN_MS,
  type StoredGrant,
} from "./oauth-grants";

export {
  AUTHORIZE_TTL_MS,
  DEPLOYMENT_OWNER,
  type McpTokenStore,
  NeedsAuthorization,
  type PendingAuthorization,
  REFRESH_MARGIN_MS,
  type StoredGrant,
};

/**
 * `failpoint`: the crash boundaries of docs/design.md §5 (F20: a code exchanged, its grant not
 * yet stored; F21: a refresh answered, its tokens not yet stored). Absent, nothing happens.
 */
export type OAuthDeps = McpConnectionDeps & {
  store: McpTokenStore;
  now: () => number;
  failpoint?: (id: "F20" | "F21") => Promise<void>;
};

/** The origins a grant's refresh may reach: its issuer's and token endpoint's. */
function grantOrigins(grant: Pick<StoredGrant, "issuer" | "metadata">): Set<string> {
  const allowed = new Set([new URL(grant.issuer).origin]);
  if (grant.metadata?.token_endpoint) allowed.add(new URL(grant.metadata.token_endpoint).origin);
  return allowed;
}

function configuredClient(server: McpServerConfig, deps: OAuthDeps): OAuthClientInformationMixed | null {
  const auth = server.auth!;
  if (!auth.clientId) return null;
  const secret = auth.clientSecret ? deps.secret(auth.clientSecret) : undefined;
  if (auth.clientSecret && !secret)
    throw new Error(`MCP server ${server.name}: secret ${auth.clientSecret} is not set`);
  return { client_id: auth.clientId, ...(secret ? { client_secret: secret } : {}) };
}

const scopeOf = (server: McpServerConfig) =>
  server.auth!.scopes.length > 0 ? server.auth!.scopes.join(" ") : undefined;

/** A random `state`: 32 bytes, base64url. */
function newState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Starts an authorization code flow with PKCE for `principal`: the URL the user opens. */
export async function beginAuthorization(
  server: McpServerConfig,
  principal: string,
  redirectUri: string,
  deps: OAuthDeps,
): Promise<{ url: string }> {
  const allowed = new Set([new URL(server.url).origin]);
  const found = await discover(server, deps, allowed);
  const scope = scopeOf(server);
  const client =
    configuredClient(server, deps) ??
    (await registerClient(found.issuer, {
      metadata: found.metadata ?? undefined,
      clientMetadata: {
        client_name: "highwater",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(scope ? { scope } : {}),
      },
      ...(scope ? { scope } : {}),
      fetchFn: oauthFetch(deps, allowed),
    }));
  const state = newState();
  const { authorizationUrl, codeVerifier } = await startAuthorization(found.issuer, {
    metadata: found.metadata ?? undefined,
    clientInformation: client,
    redirectUrl: redirectUri,
    state,
    resource: new URL(found.resource),
    ...(scope ? { scope } : {}),
  });
  await deps.store.putPending(state, {
    server: server.name,
    principal,
    verifier: codeVerifier,
    redirectUri,
    client,
    ...found,
    expiresAt: deps.now() + AUTHORIZE_TTL_MS,
  });
  return { url: authorizationUrl.toString() };
}

/**
 * Finishes an authorization: the state is taken (once), must not have expired, and its server
 * must still be configured; the code is exchanged and the grant stored for the principal that
 * started it. Returns the server's name, or why not (nothing is stored then).
 */
export async function finishAuthorization(
  servers: readonly McpServerConfig[],
  state: string,
  code: string,
  deps: OAuthDeps,
): Promise<{ ok: true; server: string } | { ok: false; reason: string }> {
  const pending = await deps.store.takePending(state);
  if (!pending || pending.expiresAt <= deps.now())
    return { ok: false, reason: "this authorization is unknown, expired or already used" };
  const server = servers.find((s) => s.name === pending.server && s.auth);
  if (!server) return { ok: false, reason: `MCP server ${pending.server} is no longer configured for OAuth` };
  try {
    const tokens = await exchangeAuthorization(pending.issuer, {
      metadata: pending.metadata ?? undefined,
      clientInformation: pending.client,
      authorizationCode: code,
      codeVerifier: pending.verifier,
      redirectUri: pending.redirectUri,
      resource: new URL(pending.resource),
      fetchFn: oauthFetch(deps, grantOrigins(pending)),
    });
    await deps.failpoint?.("F20");
    await deps.store.put(pending.principal, server.name, grantOf(tokens, pending, deps.now()));
    return { ok: true, server: server.name };
  } catch (err) {
    return { ok: false, reason: `the authorization server refused the code (${errorName(err)})` };
  }
}

function grantOf(
  tokens: OAuthTokens,
  from: Omit<StoredGrant, "tokens" | "expiresAt" | "refreshAt">,
  now: number,
): StoredGrant {
  const life = tokens.expires_in !== undefined ? tokens.expires_in * 1000 : null;
  return {
    tokens,
    expiresAt: life !== null ? now + life : null,
    ...(life !== null ? { refreshAt: now + Math.max(life - REFRESH_MARGIN_MS, life / 2) } : {}),
    client: from.client,
    issuer: from.issuer,
    metadata: from.metadata,
    resource: from.resource,
  };
}

/** The error's class and OAuth code, never its text (an authorization server may echo a value). */
function errorName(err: unknown): string {
  const e = err as { errorCode?: unknown; name?: unknown };
  return typeof e?.errorCode === "string" ? e.errorCode : typeof e?.name === "string" ? e.name : "error";
}

/**
 * The access token a connection sends for `owner`: the stored one, refreshed when it expires
 * within a minute; for client credentials a new one when there is none. No usable token (none,
 * or a refresh that failed, which removes the grant) is `NeedsAuthorization`.
 */
export async function accessToken(server: McpServerConfig, owner: string, deps: OAuthDeps): Promise<string> {
  const auth = server.auth!;
  const who = auth.grant === "client_credentials" ? DEPLOYMENT_OWNER : owner;
  const grant = await deps.store.get(who, server.name);
  if (grant && fresh(grant, deps.now())) return grant.tokens.access_token;
  try {
    let next: StoredGrant;
    if (auth.grant === "client_credentials") {
      next = await clientCredentials(server, deps);
    } else {
      const refreshToken = grant?.tokens.refresh_token;
      if (!grant || !refreshToken) throw new NeedsAuthorization(server.name);
      const tokens = await refreshAuthorization(grant.issuer, {
        metadata: grant.metadata ?? undefined,
        clientInformation: grant.client,
        refreshToken,
        resource: new URL(grant.resource),
        fetchFn: oauthFetch(deps, grantOrigins(grant)),
      });
      await deps.failpoint?.("F21");
      next = grantOf(tokens, grant, deps.now());
    }
    await deps.store.put(who, server.name, next);
    return next.tokens.access_token;
  } catch (err) {
    // Another holder (the edge, another session) may have refreshed first with the same refresh
    // token: its grant is used. Only the grant this attempt failed with is removed.
    const now = grant ? await deps.store.get(who, server.name) : null;
    if (now && now.tokens.access_token !== grant?.tokens.access_token && fresh(now, deps.now()))
      return now.tokens.access_token;
    if (now && now.tokens.access_token === grant?.tokens.access_token) await deps.store.delete(who, server.name);
    if (!(err instanceof NeedsAuthorization))
      console.warn(`highwater: MCP server ${server.name}: token refresh failed (${errorName(err)})`);
    throw new NeedsAuthorization(server.name);
  }
}

/**
 * Whether a grant's token is used as it is: until a minute before it expires, or, for a token
 * that lives less than two minutes, until half its life.
 */
function fresh(g: StoredGrant, now: number): boolean {
  return g.expiresAt === null || now < (g.refreshAt ?? g.expiresAt - REFRESH_MARGIN_MS);
}

/** Drops a grant the server refused (401): the next use asks for authorization again. */
export async function forgetGrant(server: McpServerConfig, owner: string, deps: OAuthDeps): Promise<void> {
  const who = server.auth?.grant === "client_credentials" ? DEPLOYMENT_OWNER : owner;
  await deps.store.delete(who, server.name);
}

async function clientCredentials(server: McpServerConfig, deps: OAuthDeps): Promise<StoredGrant> {
  const allowed = new Set([new URL(server.url).origin]);
  const found = await discover(server, deps, allowed);
  const client = configuredClient(server, deps)!;
  const scope = scopeOf(server);
  const tokens = await fetchToken(
    {
      redirectUrl: undefined,
      clientMetadata: { redirect_uris: [], ...(scope ? { scope } : {}) },
      clientInformation: () => client,
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization: () => {
        throw new Error("client credentials never redirect");
      },
      saveCodeVerifier: () => {},
      codeVerifier: () => "",
      prepareTokenRequest: (s) => new URLSearchParams({ grant_type: "client_credentials", ...(s ? { scope: s } : {}) }),
    },
    found.issuer,
    {
      ...(found.metadata ? { metadata: found.metadata } : {}),
      resource: new URL(found.resource),
      fetchFn: oauthFetch(deps, allowed),
    },
  );
  return grantOf(tokens, { client, ...found }, deps.now());
}
