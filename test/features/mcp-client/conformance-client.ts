/**
 * The client command the MCP conformance suite drives (`conformance client --command …`): it
 * connects to the suite's server (the last argument) the way a session object does, through
 * highwater's own MCP hub (`src/tools/mcp`: the bounded fetch, version negotiation, the OAuth
 * flow of `POST /v1/mcp/:server/authorize` and its callback, the token source), lists the tools
 * and calls each with arguments built from its schema. A question during a call is answered by
 * a scripted person who accepts the form as the console shows it (its defaults filled in).
 * Bundled with esbuild by the test, run with Node.
 */
import { argsFromSchema } from "../../../src/model/demo-args";
import { McpHub, parseMcpServers } from "../../../src/tools/mcp";
import {
  accessToken,
  beginAuthorization,
  finishAuthorization,
  forgetGrant,
  type McpTokenStore,
  type PendingAuthorization,
  type StoredGrant,
} from "../../../src/tools/mcp/oauth";
import { formDefaults } from "../../../src/tools/mcp/questions";

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string | undefined>;
const PERSON = "conformance-person";
const REDIRECT = "http://127.0.0.1:9/oauth/callback";

function memoryStore(): McpTokenStore {
  const grants = new Map<string, StoredGrant>();
  const pending = new Map<string, PendingAuthorization>();
  return {
    get: async (o, s) => grants.get(`${o}/${s}`) ?? null,
    put: async (o, s, g) => void grants.set(`${o}/${s}`, g),
    delete: async (o, s) => void grants.delete(`${o}/${s}`),
    putPending: async (state, p) => void pending.set(state, p),
    takePending: async (state) => {
      const p = pending.get(state) ?? null;
      pending.delete(state);
      return p;
    },
  };
}

const vars: Record<string, string | undefined> = { CLIENT_SECRET: context.client_secret };
const secret = (name: string) => vars[name];
const clientCredentials = scenario.startsWith("auth/client-credentials");
const auth = scenario.startsWith("auth/")
  ? {
      type: "oauth",
      ...(context.client_id ? { clientId: context.client_id } : {}),
      ...(context.client_secret ? { clientSecret: "{{secret:CLIENT_SECRET}}" } : {}),
      ...(clientCredentials ? { grant: "client_credentials" } : {}),
    }
  : undefined;
const config = parseMcpServers(JSON.stringify([{ name: "conf", url, timeoutMs: 30_000, ...(auth ? { auth } : {}) }]));
if (!config.ok) throw new Error(config.message);
const servers = config.servers;
const server = servers[0]!;
const deps = { fetch, secret, store: memoryStore(), now: Date.now };
const hub = new McpHub(servers, {
  fetch,
  secret,
  now: Date.now,
  tokens: { token: (s) => accessToken(s, PERSON, deps), refused: (s) => forgetGrant(s, PERSON, deps) },
});

/** The person connects the server: the authorization URL is opened and consented to (the suite's server redirects at once). */
async function authorize(): Promise<void> {
  const { url: authUrl } = await beginAuthorization(server, PERSON, REDIRECT, deps);
  const consent = await fetch(authUrl, { redirect: "manual" });
  const location = consent.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${consent.status} without a redirect`);
  const back = new URL(location);
  const done = await finishAuthorization(
    servers,
    back.searchParams.get("state") ?? "",
    back.searchParams.get("code") ?? "",
    deps,
  );
  if (!done.ok) throw new Error(done.reason);
}

let listing = await hub.list();
if (listing.unavailable[0]?.reason === "needs_authorization" && !clientCredentials) {
  await authorize();
  listing = await hub.list();
}
if (listing.unavailable.length > 0) throw new Error(`the server is ${listing.unavailable[0]!.reason}`);
console.log(`listed ${listing.tools.length} tools in ${listing.servers?.[0]?.protocolVersion}`);
for (const tool of listing.tools) {
  const args = tool.tool === "add_numbers" ? { a: 2, b: 3 } : argsFromSchema(tool.parameters);
  const result = await hub.call(tool, args, `hw_conformance_${tool.tool}`, AbortSignal.timeout(30_000), {
    ask: async (q) =>
      q.mode === "form" ? { action: "accept", content: formDefaults(q.schema) } : { action: "accept" },
  });
  console.log(`${tool.tool}: ${result.status} ${JSON.stringify(result.response)}`);
}
process.exit(0);
