import { z } from "zod";
import { ApiError, MAX_TEXT_BYTES, MessageText, unwrap, utf8Bytes } from "../../contract";
import { readJson } from "../../http/body";
import { resource } from "../../http/routing";
import { parseInput, queryInt } from "../../http/schemas";
import { callerOf, type EdgeApp, type EdgeContext } from "../../http/types";
import { MAX_RECORD_BYTES, MAX_REFS, TOPIC } from "./facts";

const content = z
  .string()
  .refine((s) => s === "" || MessageText.safeParse(s).success, "content contains a lone UTF-16 surrogate")
  .refine((s) => utf8Bytes(s) <= MAX_RECORD_BYTES, { message: `at most ${MAX_RECORD_BYTES} UTF-8 bytes` });

export const PutRecord = z.strictObject({
  content,
  expectedRevision: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  coversEntry: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const PostRecordEntry = z.strictObject({
  text: MessageText,
  refs: z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(MAX_REFS).optional(),
});

/** A malformed topic is an unknown sub-resource: 404, decided before the body (docs/API.md §7.1). */
function topicOf(c: EdgeContext): string {
  const topic = c.req.param("topic") ?? "";
  if (!TOPIC.test(topic)) throw new ApiError("not_found", "unknown topic");
  return topic;
}

/** docs/API.md#records: a page of uncovered entries, after an entry id. */
const RecordQuery = z.strictObject({
  after: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: queryInt(1, 200).optional(),
});

/** Work records (docs/API.md §6, §7.33): topics, their revisions and entries. */
export function recordRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/records", {
    GET: async (c) => c.json(unwrap(await c.get("session").call(callerOf(c), "records", "list", {}))),
  });

  resource(app, "/v1/sessions/:id/records/:topic", {
    GET: async (c) => {
      const q = parseInput(RecordQuery, c.req.query(), "query");
      const page = { ...(q.after !== undefined ? { after: q.after } : {}), ...(q.limit ? { limit: q.limit } : {}) };
      return c.json(unwrap(await c.get("session").call(callerOf(c), "records", "read", { topic: topicOf(c), page })));
    },
    PUT: async (c) => {
      const topic = topicOf(c);
      const body = parseInput(PutRecord, await readJson(c, undefined));
      return c.json(unwrap(await c.get("session").call(callerOf(c), "records", "put", { topic, ...body })));
    },
  });

  resource(app, "/v1/sessions/:id/records/:topic/entries", {
    POST: async (c) => {
      const topic = topicOf(c);
      const raw = await readJson(c, undefined);
      const text = (raw as { text?: unknown } | null | undefined)?.text;
      // As for a message: a text over the limit is 413, decided before the schema (docs/API.md §2).
      if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
        throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
      const body = parseInput(PostRecordEntry, raw);
      return c.json(unwrap(await c.get("session").call(callerOf(c), "records", "append", { topic, ...body })), 201);
    },
  });
}
