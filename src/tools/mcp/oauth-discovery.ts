/**
 * Where an MCP server's OAuth lives (docs/API.md#mcp-servers-behind-oauth): RFC 9728
 * protected-resource metadata (from the server's 401 `WWW-Authenticate` or its well-known path),
 * then RFC 8414 / OIDC authorization-server metadata, through the bounded fetch.
 */

import {
  type AuthorizationServerMetadata,
  checkResourceAllowed,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractResourceMetadataUrl,
} from "@modelcontextprotocol/client";
import { oauthFetch } from "./bounded-fetch";
import type { McpConnectionDeps } from "./client";
import type { McpServerConfig } from "./config";

export type Discovered = { issuer: string; metadata: AuthorizationServerMetadata | null; resource: string };

/**
 * Discovery for a server. The fetch allows the MCP server's origin, then exactly the origins
 * discovery names: the protected-resource metadata's URL and authorization servers, and the
 * authorization server's token and registration endpoints.
 */
export async function discover(
  server: McpServerConfig,
  deps: McpConnectionDeps,
  allowed: Set<string>,
): Promise<Discovered> {
  const fetchFn = oauthFetch(deps, allowed);
  const url = new URL(server.url);
  let resourceMetadataUrl: URL | undefined;
  try {
    const probe = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    });
    if (probe.status === 401) resourceMetadataUrl = extractResourceMetadataUrl(probe);
    await probe.body?.cancel();
  } catch {
    // The well-known path is tried next.
  }
  if (resourceMetadataUrl) allowed.add(resourceMetadataUrl.origin);
  const prm = await discoverOAuthProtectedResourceMetadata(
    url,
    resourceMetadataUrl ? { resourceMetadataUrl } : undefined,
    fetchFn,
  ).catch(() => null);
  // RFC 9728 §3.3: metadata that names another resource than this server is not its metadata.
  if (prm?.resource && !checkResourceAllowed({ requestedResource: url, configuredResource: prm.resource }))
    throw new Error(`MCP server ${server.name}: its protected-resource metadata names another resource`);
  const issuer = prm?.authorization_servers?.[0] ?? url.origin;
  allowed.add(new URL(issuer).origin);
  const metadata = (await discoverAuthorizationServerMetadata(issuer, { fetchFn })) ?? null;
  for (const endpoint of [metadata?.token_endpoint, metadata?.registration_endpoint])
    if (endpoint) allowed.add(new URL(endpoint).origin);
  return { issuer, metadata, resource: prm?.resource ?? server.url };
}
