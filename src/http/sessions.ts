import type { z } from "zod";
import { computeThreshold, MIN_THRESHOLD } from "../context";
import { ApiError, type Result, unwrap } from "../contract";
import {
  describeProviders,
  type ModelConfig,
  mergeModel,
  type ProviderName,
  resolveDefaultModel,
  resolveProviders,
} from "../model";
import type { Session } from "../projections";
import { readJson } from "./body";
import { createRegistered, mintSessionId } from "./create-session";
import { adoptingStub, resource } from "./routing";
import { ListQuery, parseInput } from "./schemas";
import { PatchSession, SessionOptions } from "./session-options";
import { checkToolNames } from "./tools";
import { callerOf, directoryIdOf, directoryOf, type EdgeApp, type EdgeContext } from "./types";

/** A session may choose only a configured provider (docs/API.md §1): else 400. */
function requireConfigured(env: Env, provider: ProviderName | undefined): void {
  if (provider && !resolveProviders(env).credentials[provider])
    throw new ApiError("bad_request", `model.provider: ${provider} is not configured on this Worker`);
}

function requireThreshold(model: ModelConfig): void {
  const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
  if (threshold < MIN_THRESHOLD)
    throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
}

type CreateOptions = z.infer<typeof SessionOptions>;

/**
 * `POST /v1/sessions` for the caller (also the MCP server's `start_session`): checked, registered
 * in the caller's directory, then written. `id` is the id to create under (default: a new one).
 */
export async function createSession(c: EdgeContext, opts: CreateOptions, id?: DurableObjectId): Promise<Session> {
  callerOf(c);
  return createSessionFor(c.env, c.get("principal"), opts, id);
}

/**
 * A session created for `principal` by the Worker itself (a channel's thread, docs/API.md#channels):
 * the same checks, registration and first write as `POST /v1/sessions`.
 */
export async function createSessionFor(
  env: Env,
  principal: string,
  opts: CreateOptions,
  id?: DurableObjectId,
): Promise<Session> {
  await checkToolNames(env, principal, opts);
  requireConfigured(env, opts.model?.provider);
  const model = mergeModel(resolveDefaultModel(env), opts.model ?? {});
  requireThreshold(model);
  const minted = mintSessionId(env, opts.jurisdiction);
  const namespace = minted.namespace;
  const sessionId = id ?? minted.id;
  // docs/API.md §7.24: with a jurisdiction a hint is recorded but not used.
  const hint = opts.locationHint && !opts.jurisdiction ? { locationHint: opts.locationHint } : undefined;
  const stub = namespace.get(sessionId, hint);
  const directory = directoryOf(env, principal);
  return createRegistered<Session>({
    register: () => directory.add(sessionId.toString(), null, new Date().toISOString()),
    create: () =>
      stub.create(
        { principal },
        {
          options: opts,
          model,
          parentId: null,
          directoryId: directoryIdOf(env, principal).toString(),
        },
      ),
    unregister: () => directory.remove(sessionId.toString()),
  });
}

/** `GET /v1/sessions` for the caller (also the MCP server's `list_sessions`): newest first. */
export async function listSessions(c: EdgeContext, limit: number, before: string | undefined) {
  const page = await directoryOf(c.env, c.get("principal")).list(limit, before);
  // The listing itself was counted by the directory; reading each row is not another request.
  const caller = { principal: c.get("principal") };
  const sessions = await Promise.all(
    page.ids.map(async (id) => {
      // Listed by the caller's own directory: a session from before owners were in seq 1 is adopted.
      const stub = adoptingStub(
        c.env,
        c.env.SESSIONS.get(c.env.SESSIONS.idFromString(id)),
        id,
        () => caller.principal,
        true,
      );
      const r = (await stub.getSession(caller)) as Result<Session>;
      return r.ok ? r.value : null;
    }),
  );
  return { sessions: sessions.filter((s): s is Session => s !== null), ...(page.next ? { next: page.next } : {}) };
}

/** Sessions as a collection and one session's own record; the configured providers. */
export function sessionRoutes(app: EdgeApp): void {
  resource(app, "/v1/providers", {
    GET: (c) => c.json(describeProviders(c.env)),
  });

  resource(app, "/v1/sessions", {
    POST: async (c) => c.json(await createSession(c, parseInput(SessionOptions, await readJson(c, {}))), 201),
    GET: async (c) => {
      const q = parseInput(ListQuery, c.req.query(), "query");
      return c.json(await listSessions(c, q.limit ?? 50, q.before));
    },
  });

  resource(app, "/v1/sessions/:id", {
    GET: async (c) => c.json(unwrap(await c.get("session").getSession(callerOf(c)))),
    PATCH: async (c) => {
      const body = parseInput(PatchSession, await readJson(c, {}));
      requireConfigured(c.env, body.model?.provider);
      return c.json(unwrap(await c.get("session").patch(callerOf(c), body)));
    },
  });
}
