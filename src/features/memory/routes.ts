/** `/v1/memory` (docs/API.md#memory): the caller's own entries, in its own memory object. */
import { z } from "zod";
import { ApiError, IdempotencyKey, unwrap } from "../../contract";
import { readJson, readNoBody } from "../../http/body";
import { resource } from "../../http/routing";
import { parseInput, queryInt } from "../../http/schemas";
import { directoryIdOf, type EdgeApp, type EdgeContext } from "../../http/types";
import { MEMORY_ID, memoryIdFor } from "./entries";
import { MemoryText, MemoryTopic } from "./schema";
import { memoryOf } from "./stub";

const MemoryQuery = z.strictObject({
  q: z.string().max(1000).optional(),
  topic: MemoryTopic.optional(),
  limit: queryInt(1, 100).optional(),
  before: z
    .string()
    .regex(/^[on]\d{1,15}$/, "expected the `next` of a previous page")
    .optional(),
});

const PostMemory = z.strictObject({
  text: MemoryText,
  topic: MemoryTopic.optional(),
  pinned: z.boolean().optional(),
  idempotencyKey: IdempotencyKey.optional(),
});

const PatchMemory = z.strictObject({ pinned: z.boolean() });

/** The caller's memory object: named after its directory, as its sessions name it. */
function memory(c: EdgeContext) {
  return memoryOf(c.env, directoryIdOf(c.env, c.get("principal")).toString());
}

/** A malformed id is an unknown entry: 404, decided before the body (docs/API.md §7.1). */
function entryId(c: EdgeContext): string {
  const id = c.req.param("id") ?? "";
  if (!MEMORY_ID.test(id)) throw new ApiError("not_found", "memory entry not found");
  return id;
}

export function memoryRoutes(app: EdgeApp): void {
  resource(app, "/v1/memory", {
    GET: async (c) => {
      const q = parseInput(MemoryQuery, c.req.query(), "query");
      const query = {
        limit: q.limit ?? 20,
        ...(q.q !== undefined ? { q: q.q } : {}),
        ...(q.topic !== undefined ? { topic: q.topic } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
      };
      return c.json(await memory(c).list(query));
    },
    POST: async (c) => {
      const body = parseInput(PostMemory, await readJson(c, undefined));
      const id = body.idempotencyKey
        ? memoryIdFor("api", body.idempotencyKey)
        : memoryIdFor("api", crypto.randomUUID());
      const r = unwrap(
        await memory(c).add({
          id,
          text: body.text,
          ...(body.topic !== undefined ? { topic: body.topic } : {}),
          pinned: body.pinned ?? false,
          source: { api: true },
          createdAt: new Date().toISOString(),
        }),
      );
      return c.json(r.entry, 201);
    },
  });

  resource(app, "/v1/memory/:id", {
    PATCH: async (c) => {
      const id = entryId(c);
      const body = parseInput(PatchMemory, await readJson(c, undefined));
      return c.json(unwrap(await memory(c).pin(id, body.pinned)));
    },
    DELETE: async (c) => {
      const id = entryId(c);
      await readNoBody(c);
      unwrap(await memory(c).forget(id));
      return c.body(null, 204);
    },
  });
}
