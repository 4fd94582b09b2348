import { z } from "zod";
import { type Result, unwrap } from "../../contract";
import { readJson } from "../../http/body";
import { createRegistered, mintSessionId } from "../../http/create-session";
import { resource } from "../../http/routing";
import { parseInput } from "../../http/schemas";
import type { Jurisdiction } from "../../http/session-options";
import { callerOf, directoryIdOf, directoryOf, type EdgeApp } from "../../http/types";
import type { Session } from "../../projections";
import type { ForkSource } from "./commands";

/** docs/API.md §7.30: only `throughSeq`; its range (1..highWater) is the parent's to check. */
export const ForkBody = z.strictObject({ throughSeq: z.number().int() });

/**
 * Fork (docs/API.md §6): the parent reads its state as of `throughSeq`, then a new session is
 * registered and written from it, like any creation (`createRegistered`), in the parent's
 * jurisdiction.
 */
export function forkRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/fork", {
    POST: async (c) => {
      const body = parseInput(ForkBody, await readJson(c, undefined));
      const source = unwrap(await c.get("session").call(callerOf(c), "fork", "source", body)) as ForkSource;
      // A fork stays in its parent's jurisdiction (docs/API.md §2): the body cannot ask for another.
      const { namespace, id } = mintSessionId(c.env, source.options.jurisdiction as Jurisdiction | undefined);
      const hint =
        source.options.locationHint && !source.options.jurisdiction ? source.options.locationHint : undefined;
      const stub = namespace.get(id, hint ? { locationHint: hint as DurableObjectLocationHint } : undefined);
      const directory = directoryOf(c.env, c.get("principal"));
      const session = await createRegistered<Session>({
        register: () => directory.add(id.toString(), null, new Date().toISOString()),
        // A fork is a session like any other: it records its owner's directory, for its children.
        create: () =>
          stub.createBy(callerOf(c), "fork", "fork", {
            source,
            directoryId: directoryIdOf(c.env, c.get("principal")).toString(),
          }) as Promise<Result<Session>>,
        unregister: () => directory.remove(id.toString()),
      });
      return c.json(session, 201);
    },
  });
}
