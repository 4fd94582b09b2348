/**
 * A local OAuth 2.1 authorization server and an MCP server that requires its bearer tokens, on
 * two 127.0.0.1 ports of the test's own process (two origins: the MCP client must reach the
 * authorization server only because discovery named it). The authorization endpoint consents at
 * once (a 302 to the redirect URI with a code), the token endpoint checks PKCE S256, serves
 * refresh and client credentials; `revokeAll` makes every token and refresh token invalid.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Token = { sub: string; exp: number };

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

const b64url = (b: Buffer) => b.toString("base64url");

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
  const access = new Map<string, Token>();
  const refresh = new Map<string, { sub: string; clientId: string }>();
  const codes = new Map<string, { challenge: string; clientId: string; redirectUri: string; sub: string }>();
  let users = 0;
  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));

  const state: FakeOAuth = {
    mcpUrl: () => "",
    asOrigin: "",
    issued: [],
    counts: { authorize: 0, token: 0, refresh: 0, clientCredentials: 0, register: 0 },
    calls: [],
    expiresIn: 3600,
    revokeAll: () => {
      access.clear();
      refresh.clear();
    },
    close: async () => {},
  };

  const issue = (sub: string, clientId: string, withRefresh: boolean) => {
    const at = `at-${b64url(randomBytes(18))}`;
    access.set(at, { sub, exp: Date.now() + state.expiresIn * 1000 });
    state.issued.push(at);
    const out: Record<string, unknown> = { access_token: at, token_type: "Bearer", expires_in: state.expiresIn };
    if (withRefresh) {
      const rt = `rt-${b64url(randomBytes(18))}`;
      refresh.set(rt, { sub, clientId });
      state.issued.push(rt);
      out.refresh_token = rt;
    }
    return out;
  };

  const as = await listen(async (req, res) => {
    const url = new URL(req.url!, state.asOrigin);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: state.asOrigin,
        authorization_endpoint: `${state.asOrigin}/authorize`,
        token_endpoint: `${state.asOrigin}/token`,
        registration_endpoint: `${state.asOrigin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      state.counts.register++;
      const meta = JSON.parse(await body(req)) as Record<string, unknown>;
      return json(res, 201, { ...meta, client_id: `dyn-${state.counts.register}` });
    }
    if (url.pathname === "/authorize") {
      // The user consents at once: each authorization is a new user of the authorization server.
      state.counts.authorize++;
      const q = url.searchParams;
      if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge"))
        return json(res, 400, { error: "pkce" });
      const code = b64url(randomBytes(16));
      codes.set(code, {
        challenge: q.get("code_challenge")!,
        clientId: q.get("client_id")!,
        redirectUri: q.get("redirect_uri")!,
        sub: `user-${++users}`,
      });
      const to = new URL(q.get("redirect_uri")!);
      to.searchParams.set("code", code);
      to.searchParams.set("state", q.get("state")!);
      return void res.writeHead(302, { location: to.toString() }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      state.counts.token++;
      const p = new URLSearchParams(await body(req));
      const basic = req.headers.authorization?.startsWith("Basic ")
        ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":").map(decodeURIComponent)
        : null;
      const clientId = basic?.[0] ?? p.get("client_id");
      const clientSecret = basic?.[1] ?? p.get("client_secret");
      const grant = p.get("grant_type");
      if (grant === "authorization_code") {
        const c = codes.get(p.get("code") ?? "");
        codes.delete(p.get("code") ?? "");
        const verifier = p.get("code_verifier") ?? "";
        const challenge = b64url(createHash("sha256").update(verifier).digest());
        if (!c || c.challenge !== challenge || c.clientId !== clientId || c.redirectUri !== p.get("redirect_uri"))
          return json(res, 400, { error: "invalid_grant" });
        return json(res, 200, issue(c.sub, c.clientId, true));
      }
      if (grant === "refresh_token") {
        state.counts.refresh++;
        const r = refresh.get(p.get("refresh_token") ?? "");
        if (!r || r.clientId !== clientId) return json(res, 400, { error: "invalid_grant" });
        refresh.delete(p.get("refresh_token")!);
        return json(res, 200, issue(r.sub, r.clientId, true));
      }
      if (grant === "client_credentials") {
        state.counts.clientCredentials++;
        if (clientId !== opts.clientId || clientSecret !== opts.clientSecret)
          return json(res, 401, { error: "invalid_client" });
        return json(res, 200, issue("machine", opts.clientId, false));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    json(res, 404, { error: "not_found" });
  });
  state.asOrigin = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;

  let mcpOrigin = "";
  const mcp = await listen(async (req, res) => {
    const url = new URL(req.url!, mcpOrigin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      const resource = `${mcpOrigin}${url.pathname.slice("/.well-known/oauth-protected-resource".length) || "/"}`;
      return json(res, 200, { resource, authorization_servers: [state.asOrigin], scopes_supported: ["read"] });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const token = bearer ? access.get(bearer) : undefined;
    if (!token || token.exp < Date.now()) {
      await body(req);
      return json(
        res,
        401,
        { error: "invalid_token" },
        {
          "www-authenticate": `Bearer resource_metadata="${mcpOrigin}/.well-known/oauth-protected-resource${url.pathname}"`,
        },
      );
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
    await new Promise((r) => as.close(r));
    await new Promise((r) => mcp.close(r));
  };
  return state;
}
