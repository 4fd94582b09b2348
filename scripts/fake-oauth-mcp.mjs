#!/usr/bin/env node
// A local OAuth 2.1 authorization server and an MCP server it protects, for the README's
// walkthrough "MCP servers behind OAuth" (offline, plain Node, nothing to build):
//
//   node scripts/fake-oauth-mcp.mjs [--port 9400]      # MCP on PORT, authorization server on PORT+1
//
// The authorization server (http://127.0.0.1:PORT+1) serves RFC 8414 metadata, dynamic client
// registration (RFC 7591), an authorization endpoint with a one-click consent page, PKCE S256
// only, authorization-code and refresh-token grants (refresh tokens rotate: each is used once)
// and client credentials for the client the caller names. The MCP server
// (http://127.0.0.1:PORT/mcp, Streamable HTTP over @modelcontextprotocol/server) answers 401
// with `WWW-Authenticate: Bearer resource_metadata=…` without a valid token and serves RFC 9728
// protected-resource metadata; its tools are a tiny issue tracker kept in memory. Everything is
// in memory: after a restart of this script, connect again from the console.
//
// `startAuthorizationServer` is also what test/fakes/oauth-server.ts runs, and
// `startTracker` what test/browser/console-oauth.test.ts runs.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const b64url = (b) => b.toString("base64url");
const htmlText = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readBody(req) {
  let s = "";
  for await (const c of req) s += c;
  return s;
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
}

/** An HTTP server on 127.0.0.1 (`port` 0: any free one); resolves with it and its origin. */
function listen(port, handler) {
  const server = createServer((req, res) => {
    handler(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

function close(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The authorization server. `consent`: "auto" redirects back at once (tests), "page" shows a
 * page with Allow / Deny first. Each authorization is a new user (`user-1`, `user-2`, …).
 * `clientId`/`clientSecret`: the one client allowed the client-credentials grant (its tokens'
 * subject is `machine`). Returns the counters and tokens the tests read, `expiresIn` (seconds,
 * settable), `verify(token)` → `{ sub }` or null, `revokeAll()` and `close()`.
 */
export async function startAuthorizationServer(opts = {}) {
  const { consent = "auto", port = 0, clientId: m2mId, clientSecret: m2mSecret } = opts;
  const access = new Map();
  const refresh = new Map();
  const codes = new Map();
  let users = 0;
  const as = {
    origin: "",
    issued: [],
    counts: { authorize: 0, token: 0, refresh: 0, clientCredentials: 0, register: 0 },
    expiresIn: opts.expiresIn ?? 3600,
    verify(token) {
      const t = token ? access.get(token) : undefined;
      return t && t.exp >= Date.now() ? { sub: t.sub } : null;
    },
    revokeAll() {
      access.clear();
      refresh.clear();
    },
    close: async () => {},
  };

  const issue = (sub, clientId, withRefresh) => {
    const at = `at-${b64url(randomBytes(18))}`;
    access.set(at, { sub, exp: Date.now() + as.expiresIn * 1000 });
    as.issued.push(at);
    const out = { access_token: at, token_type: "Bearer", expires_in: as.expiresIn };
    if (withRefresh) {
      const rt = `rt-${b64url(randomBytes(18))}`;
      refresh.set(rt, { sub, clientId });
      as.issued.push(rt);
      out.refresh_token = rt;
    }
    return out;
  };

  /** The browser goes back to the client's redirect URI with a code (or with the refusal). */
  const redirectBack = (res, q, allow) => {
    const to = new URL(q.get("redirect_uri"));
    if (allow) {
      const code = b64url(randomBytes(16));
      codes.set(code, {
        challenge: q.get("code_challenge"),
        clientId: q.get("client_id"),
        redirectUri: q.get("redirect_uri"),
        sub: `user-${++users}`,
      });
      to.searchParams.set("code", code);
    } else {
      to.searchParams.set("error", "access_denied");
    }
    to.searchParams.set("state", q.get("state") ?? "");
    res.writeHead(302, { location: to.toString() }).end();
  };

  const consentPage = (res, q) => {
    const hidden = [...q]
      .map(([k, v]) => `<input type="hidden" name="${htmlText(k)}" value="${htmlText(v)}">`)
      .join("");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(
      `<!doctype html><meta charset="utf-8"><title>Authorize</title>
<h1>Local authorization server</h1>
<p>Allow <b>${htmlText(q.get("client_id"))}</b> to use the tracker (scope: <code>${htmlText(q.get("scope") ?? "")}</code>)?</p>
<form method="post" action="/authorize">${hidden}
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form>`,
    );
  };

  const { server, origin } = await listen(port, async (req, res) => {
    const url = new URL(req.url, as.origin);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: as.origin,
        authorization_endpoint: `${as.origin}/authorize`,
        token_endpoint: `${as.origin}/token`,
        registration_endpoint: `${as.origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      as.counts.register++;
      const meta = JSON.parse(await readBody(req));
      return json(res, 201, { ...meta, client_id: `dyn-${as.counts.register}` });
    }
    if (url.pathname === "/authorize") {
      const q = req.method === "POST" ? new URLSearchParams(await readBody(req)) : url.searchParams;
      if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !q.get("redirect_uri"))
        return json(res, 400, { error: "invalid_request", error_description: "PKCE S256 is required" });
      if (req.method === "GET" && consent === "page") return consentPage(res, q);
      as.counts.authorize++;
      const decision = q.get("decision");
      q.delete("decision");
      return redirectBack(res, q, req.method === "GET" || decision === "allow");
    }
    if (url.pathname === "/token" && req.method === "POST") {
      as.counts.token++;
      const p = new URLSearchParams(await readBody(req));
      const auth = req.headers.authorization ?? "";
      const basic = auth.startsWith("Basic ")
        ? Buffer.from(auth.slice(6), "base64").toString().split(":").map(decodeURIComponent)
        : null;
      const clientId = basic?.[0] ?? p.get("client_id");
      const clientSecret = basic?.[1] ?? p.get("client_secret");
      const grant = p.get("grant_type");
      if (grant === "authorization_code") {
        const c = codes.get(p.get("code") ?? "");
        codes.delete(p.get("code") ?? "");
        const challenge = b64url(
          createHash("sha256")
            .update(p.get("code_verifier") ?? "")
            .digest(),
        );
        if (!c || c.challenge !== challenge || c.clientId !== clientId || c.redirectUri !== p.get("redirect_uri"))
          return json(res, 400, { error: "invalid_grant" });
        return json(res, 200, issue(c.sub, c.clientId, true));
      }
      if (grant === "refresh_token") {
        as.counts.refresh++;
        const r = refresh.get(p.get("refresh_token") ?? "");
        if (!r || r.clientId !== clientId) return json(res, 400, { error: "invalid_grant" });
        refresh.delete(p.get("refresh_token"));
        return json(res, 200, issue(r.sub, r.clientId, true));
      }
      if (grant === "client_credentials") {
        as.counts.clientCredentials++;
        if (!m2mId || clientId !== m2mId || clientSecret !== m2mSecret)
          return json(res, 401, { error: "invalid_client" });
        return json(res, 200, issue("machine", m2mId, false));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    json(res, 404, { error: "not_found" });
  });
  as.origin = origin;
  as.close = () => close(server);
  return as;
}

/** RFC 9728 metadata of the resource at `origin` + the path after the well-known prefix. */
export function protectedResourceMetadata(origin, pathname, asOrigin, scopes) {
  const resource = `${origin}${pathname.slice("/.well-known/oauth-protected-resource".length) || "/"}`;
  return { resource, authorization_servers: [asOrigin], scopes_supported: scopes };
}

/** The 401 of a request without a valid token: where its protected-resource metadata is. */
export function unauthorized(res, origin, pathname) {
  json(
    res,
    401,
    { error: "invalid_token" },
    { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${pathname}"` },
  );
}

/**
 * The walkthrough: the authorization server on `port + 1` (consent page) and the tracker's MCP
 * server on `port` (`/mcp`). `port` 0: two free ports. Returns both origins, the MCP URL, the
 * authorization server and `close()`.
 */
export async function startTracker({ port = 0, consent = "page" } = {}) {
  const as = await startAuthorizationServer({ consent, port: port ? port + 1 : 0 });
  const issues = [{ id: 1, title: "Write the release notes", by: "user-0" }];
  const who = new AsyncLocalStorage();
  const factory = () => {
    const server = new McpServer({ name: "tracker", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool(
      "list_issues",
      {
        description: "List the open issues of the tracker",
        inputSchema: z.object({}),
        annotations: { readOnlyHint: true },
      },
      async () => ({
        content: [
          {
            type: "text",
            text: `Issues seen by ${who.getStore()}: ${issues.map((i) => `#${i.id} ${i.title}`).join("; ")}`,
          },
        ],
      }),
    );
    server.registerTool(
      "create_issue",
      { description: "Open an issue in the tracker", inputSchema: z.object({ title: z.string().max(200) }) },
      async ({ title }) => {
        const issue = { id: issues.length + 1, title, by: who.getStore() };
        issues.push(issue);
        return { content: [{ type: "text", text: `Opened #${issue.id} ${title} as ${issue.by}` }] };
      },
    );
    return server;
  };
  const handler = createMcpHandler(factory);
  const { server, origin } = await listen(port, async (req, res) => {
    const url = new URL(req.url, origin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource"))
      return json(res, 200, protectedResourceMetadata(origin, url.pathname, as.origin, ["issues"]));
    if (url.pathname !== "/mcp") return json(res, 404, { error: "not_found" });
    const token = as.verify(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]);
    if (!token) {
      await readBody(req);
      return unauthorized(res, origin, url.pathname);
    }
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const answer = await who.run(token.sub, () =>
      handler.fetch(new Request(`${origin}${req.url}`, { method: req.method, headers, body })),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    res.end();
  });
  return {
    origin,
    mcpUrl: `${origin}/mcp`,
    as,
    close: async () => {
      await close(server);
      await as.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--port");
  const port = i > 0 ? Number(process.argv[i + 1]) : 9400;
  const tracker = await startTracker({ port });
  const servers = [
    { name: "tracker", url: tracker.mcpUrl, trust: "annotations", auth: { type: "oauth", scopes: ["issues"] } },
  ];
  console.log(`MCP server (tracker):  ${tracker.mcpUrl}
Authorization server:  ${tracker.as.origin}  (consent page: click Allow)

Add these lines to .dev.vars (once), then run \`npm start\`:

TOKEN_ENCRYPTION_KEY=${b64url(randomBytes(32))}
MCP_SERVERS='${JSON.stringify(servers)}'

Tokens live in this process: after restarting it, connect again from the console. Ctrl-C stops it.`);
  const stop = () => tracker.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
