/** Fork: a new session from a parent's log up to a seq. */
import type { Feature } from "../types";
import { pullParentArchive } from "./archive";
import { createFork, type ForkSource, readForkSource } from "./commands";
import { forkRoutes } from "./routes";

type ForkInput = { source: ForkSource; directoryId?: string };

export const fork: Feature = {
  name: "fork",
  routes: forkRoutes,
  // The parent's side: its state as of `throughSeq`. Reads only.
  operations: { source: ({ runtime }, i: { throughSeq: number }) => readForkSource(runtime, i.throughSeq) },
  // The fork's side: the parent's archived results copied first, then its first events.
  creations: {
    fork: {
      prepare: async ({ env, caller }, input: ForkInput) => ({
        ...input,
        archive: await pullParentArchive(env, caller, input.source),
      }),
      write: ({ runtime, id, owner }, p: ForkInput & { archive: { text: string; mediaType: string }[] }) =>
        createFork(runtime, {
          id,
          source: p.source,
          owner,
          archive: p.archive,
          ...(p.directoryId ? { directoryId: p.directoryId } : {}),
        }),
    },
  },
};
