/**
 * What an MCP OAuth grant is and where it lives (docs/API.md#mcp-servers-behind-oauth): the
 * stored grant, an authorization under way, the store port (a Durable Object of its own,
 * encrypted at rest) and the error that makes a server `needs_authorization`.
 */
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/client";

/** How long an authorization started by `POST /v1/mcp/:server/authorize` may be finished. */
export const AUTHORIZE_TTL_MS = 10 * 60 * 1000;
/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60 * 1000;
/** Whose grants: a principal's, or the deployment's (client credentials). */
export const DEPLOYMENT_OWNER = "deployment";

/** What one server's grant needs to be used and refreshed. Never leaves the store but to a connection. */
export type StoredGrant = {
  tokens: OAuthTokens;
  /** ms since the epoch, or null when the server said nothing. */
  expiresAt: number | null;
  /** When it is refreshed before use (ms since the epoch). */
  refreshAt?: number;
  client: OAuthClientInformationMixed;
  issuer: string;
  metadata: AuthorizationServerMetadata | null;
  resource: string;
};

/** An authorization under way, bound to the principal that started it. */
export type PendingAuthorization = {
  server: string;
  principal: string;
  verifier: string;
  redirectUri: string;
  client: OAuthClientInformationMixed;
  issuer: string;
  metadata: AuthorizationServerMetadata | null;
  resource: string;
  expiresAt: number;
};

/** The token store (a Durable Object of its own: src/session/token-object.ts). */
export type McpTokenStore = {
  get(owner: string, server: string): Promise<StoredGrant | null>;
  put(owner: string, server: string, grant: StoredGrant): Promise<void>;
  delete(owner: string, server: string): Promise<void>;
  putPending(state: string, pending: PendingAuthorization): Promise<void>;
  /** The pending authorization of `state`, removed in the same step (a state is used once). */
  takePending(state: string): Promise<PendingAuthorization | null>;
};

/** Why no token: the user must authorize (again), shown as the server's `unavailable` reason. */
export class NeedsAuthorization extends Error {
  constructor(server: string) {
    super(`MCP server ${server} needs authorization`);
  }
}
