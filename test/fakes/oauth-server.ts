/**
 * A local OAuth 2.1 authorization server and an MCP server that requires its bearer tokens, on
 * two 127.0.0.1 ports of the test's own process (two origins: the MCP client must reach the
 * authorization server only because discovery named it). The authorization server is the
 * README walkthrough's (`startAuthorizationServer` of scripts/fake-oauth-mcp.mjs): its
 * authorization endpoint consents at once (a 302 to the redirect URI with a code), the token
 * endpoint checks PKCE S256, serves refresh (rotating refresh tokens) and client credentials;
 * `revokeAll` makes every token and refresh token invalid. The MCP server here is hand-written
 * JSON-RPC, counting the calls and the subject of the token each carried.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeOAuth = {
  /** The MCP server's URL for `path` (e.g. `/mcp`). */
  mcpUrl(path: string): string;
  asOrigin: string;
  /** Every access and refresh token ever issued. */
  issued: string[];
  counts: { authorize: number; token: number; refresh: number; clientCredentials: number; register: number };
  /** Calls the MCP server answered, with the subject of the token each carried. */
  calls: { tool: string; sub: string }[];
  /** Access tokens issued from now on expire in this many seconds. */
  expiresIn: number;
  revokeAll(): void;
  close(): Promise<void>;
};

/** What scripts/fake-oauth-mcp.mjs exports (a plain-Node script: imported, not type-checked). */
type Walkthrough = {
  startAuthorizationServer(opts: { consent?: "auto" | "page"; clientId?: string; clientSecret?: string }): Promise<
    Omit<FakeOAuth, "mcpUrl" | "asOrigin" | "calls"> & {
      origin: string;
      verify(token?: string): { sub: string } | null;
    }
  >;
  protectedResourceMetadata(origin: string, pathname: string, asOrigin: string, scopes: string[]): unknown;
  unauthorized(res: ServerResponse, origin: string, pathname: string): void;
};
const walkthrough = (await import(new URL("../../scripts/fake-oauth-mcp.mjs", import.meta.url).href)) as Walkthrough;

async function body(req: IncomingMessage): Promise<string> {
  let s = "";
  for await (const c of req) s += c;
  return s;
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): Promise<Server> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err) => {
      res.writeHead(500).end(String(err));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

export async function startFakeOAuth(opts: { clientId: string; clientSecret: string }): Promise<FakeOAuth> {
  const as = await walkthrough.startAuthorizationServer({ consent: "auto", ...opts });
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  const state: FakeOAuth = {
    mcpUrl: () => "",
    asOrigin: as.origin,
    issued: as.issued,
    counts: as.counts,
    calls: [],
    get expiresIn() {
      return as.expiresIn;
    },
    set expiresIn(seconds: number) {
      as.expiresIn = seconds;
    },
    revokeAll: () => as.revokeAll(),
    close: async () => {},
  };

  let mcpOrigin = "";
  const mcp = await listen(async (req, res) => {
    const url = new URL(req.url!, mcpOrigin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource"))
      return json(res, 200, walkthrough.protectedResourceMetadata(mcpOrigin, url.pathname, as.origin, ["read"]));
    const token = as.verify(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]);
    if (!token) {
      await body(req);
      return walkthrough.unauthorized(res, mcpOrigin, url.pathname);
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    const msg = JSON.parse(await body(req)) as {
      id?: number;
      method: string;
      params: { protocolVersion?: string; name?: string };
    };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const reply = (result: unknown) => json(res, 200, { jsonrpc: "2.0", id: msg.id, result });
    if (msg.method === "initialize")
      return reply({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "fake-protected", version: "1" },
      });
    if (msg.method === "tools/list")
      return reply({
        tools: [
          {
            name: "whoami",
            description: "Who the token is for",
            inputSchema: { type: "object", properties: {} },
            annotations: { readOnlyHint: true },
          },
        ],
      });
    if (msg.method === "tools/call") {
      state.calls.push({ tool: msg.params.name ?? "", sub: token.sub });
      return reply({ content: [{ type: "text", text: `you are ${token.sub}` }] });
    }
    json(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
  });
  mcpOrigin = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}`;
  state.mcpUrl = (path) => `${mcpOrigin}${path}`;
  state.close = async () => {
    await as.close();
    mcp.closeAllConnections();
    await new Promise((r) => mcp.close(r));
  };
  return state;
}
