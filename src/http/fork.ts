import { z } from "zod";
import { unwrap } from "../contract";
import type { Session } from "../projections";
import type { ForkSource } from "../runtime/fork";
import { readJson } from "./body";
import { createRegistered } from "./create-session";
import { resource } from "./routing";
import { parseInput } from "./schemas";
import { directoryOf, type EdgeApp } from "./types";

/** CONTRACT §7.30: only `throughSeq`; its range (1..highWater) is the parent's to check. */
export const ForkBody = z.strictObject({ throughSeq: z.number().int() });

/**
 * Fork (CONTRACT §6): the parent reads its state as of `throughSeq`, then a new session is
 * registered and written from it, like any creation (`createRegistered`). Sessions have no
 * jurisdiction option yet; when they do, a fork keeps its parent's.
 */
export function forkRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/fork", {
    POST: async (c) => {
      const body = parseInput(ForkBody, await readJson(c, undefined));
      const source = unwrap(await c.get("session").forkSource(body.throughSeq)) as ForkSource;
      const hint = source.options.locationHint;
      const id = c.env.SESSIONS.newUniqueId();
      const stub = c.env.SESSIONS.get(id, hint ? { locationHint: hint as DurableObjectLocationHint } : undefined);
      const directory = directoryOf(c.env, c.get("principal"));
      const session = await createRegistered<Session>({
        register: () => directory.add(id.toString(), null, new Date().toISOString()),
        create: () => stub.createFork({ source }),
        unregister: () => directory.remove(id.toString()),
      });
      return c.json(session, 201);
    },
  });
}
