/**
 * The app as deployed (src/worker.ts), wrapped from outside for two benches, so that no bench
 * switch sits in src/:
 * - `HW_BENCH_CLOCK_URL` (runner.ts restart): each session object, when constructed, posts its
 *   own `Date.now()` there, so the bench sees when the object came up by the object's clock.
 * - `HW_BENCH_DIRECTORY_LOOKUP=1` (edge.ts ownership): the per-principal directory is asked
 *   before every session request, the check the app had before ownership moved into the object.
 */
import { env as startEnv } from "cloudflare:workers";
import { errorBody } from "../src/contract";
import { createApp, principalOf } from "../src/http";
import { sessionStub } from "../src/http/routing";
import { directoryOf } from "../src/http/types";
import { describeDefaultProvider } from "../src/model";
import { SessionObject as AppSessionObject } from "../src/session";

export { ChannelObject, MemoryObject, SkillsObject } from "../src/features/objects";
export { DirectoryObject, TokenObject } from "../src/session";

type BenchVars = { HW_BENCH_CLOCK_URL?: string; HW_BENCH_DIRECTORY_LOOKUP?: string };

export class SessionObject extends AppSessionObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const clock = (env as BenchVars).HW_BENCH_CLOCK_URL;
    if (clock) void fetch(clock, { method: "POST", body: String(Date.now()) }).catch(() => undefined);
  }
}

// As src/worker.ts: the start log says which provider sessions default to.
try {
  console.log(describeDefaultProvider(startEnv));
} catch (err) {
  console.error(`highwater: model configuration: ${(err as Error).message}`);
}

const SESSION_PATH = /^\/v1\/sessions\/([^/]+)(?:\/|$)/;
const BEARER = /^Bearer (\S+)$/i;
const app = createApp();

export default {
  async fetch(request, env, ctx) {
    if ((env as BenchVars).HW_BENCH_DIRECTORY_LOOKUP === "1") {
      const id = SESSION_PATH.exec(new URL(request.url).pathname)?.[1];
      const token = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
      if (id && token && sessionStub(env, id) && !(await directoryOf(env, principalOf(token)).has(id)))
        return Response.json(errorBody("not_found", "session not found"), { status: 404 });
    }
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
