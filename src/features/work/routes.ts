import { z } from "zod";
import { ApiError, IdempotencyKey, MAX_TEXT_BYTES, MessageText, unwrap, utf8Bytes } from "../../contract";
import { readJson, readNoBody } from "../../http/body";
import { resource } from "../../http/routing";
import { parseInput, queryInt, ResumeRun } from "../../http/schemas";
import { parsedBody } from "../../http/turns";
import { callerOf, type EdgeApp, type EdgeContext } from "../../http/types";
// The pure schedule module only: the edge must not load the runtime (and its SQL migrations).
import { cronProblem, TRIGGER_NAME } from "./schedule";

/** An inbox source (docs/API.md#work-beyond-one-turn). */
const SOURCE = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "expected [A-Za-z0-9._-]{1,64}");

/** A new trigger's name: never starting with a dot (docs/API.md#work-beyond-one-turn). */
const TRIGGER = z.string().regex(TRIGGER_NAME, "expected [A-Za-z0-9_-][A-Za-z0-9._-]{0,63} (no leading dot)");

export const InboxMessage = z.strictObject({
  source: SOURCE,
  text: MessageText,
  correlationId: IdempotencyKey.optional(),
});

/** Ten years: an interval longer than that is a mistake, not a schedule. */
const MAX_EVERY_SECONDS = 10 * 365 * 24 * 3600;

export const TriggerSchedule = z.union([
  z.strictObject({ everySeconds: z.number().int().min(1).max(MAX_EVERY_SECONDS) }),
  z.strictObject({
    cron: z
      .string()
      .max(200)
      .superRefine((s, ctx) => {
        const problem = cronProblem(s);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
  }),
  // ISO-8601 in UTC (`Z`), as docs/API.md §7.32 says; offsets are refused.
  z.strictObject({ at: z.iso.datetime({ offset: false }) }),
]);

export const CreateTrigger = z.strictObject({ name: TRIGGER, text: MessageText, schedule: TriggerSchedule });

/** docs/API.md#paging: triggers by name (`after` a name), runs newest first (`before` a cursor). */
export const TriggersQuery = z.strictObject({
  limit: queryInt(1, 500).optional(),
  after: z.string().min(1).max(64).optional(),
});
export const RunsQuery = z.strictObject({
  limit: queryInt(1, 500).optional(),
  before: queryInt(1, Number.MAX_SAFE_INTEGER).optional(),
});
const DEFAULT_PAGE = 100;

/** 413 for a text is decided from the raw value, before the schema (docs/API.md §2). */
function checkText(raw: unknown) {
  const text = (raw as { text?: unknown } | null | undefined)?.text;
  if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
    throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
}

async function bodyOf<T extends z.ZodType>(c: EdgeContext, schema: T): Promise<z.infer<T>> {
  const raw = await readJson(c, undefined);
  checkText(raw);
  return parseInput(schema, raw);
}

/** 204 once the trigger fires no more; one RPC, in which the object looks it up before a bad body (§7.1). */
async function removeTrigger(c: EdgeContext, name: string): Promise<Response> {
  const body = await parsedBody(() => readNoBody(c));
  unwrap(await c.get("session").call(callerOf(c), "work", "deleteTrigger", { name, parsed: body }));
  return c.body(null, 204);
}

/** Work beyond one turn (docs/API.md §6): the inbox, triggers and the runs they start. */
export function workRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/inbox", {
    POST: async (c) => {
      const body = await bodyOf(c, InboxMessage);
      return c.json(unwrap(await c.get("session").call(callerOf(c), "work", "inbox", body)), 202);
    },
  });

  resource(app, "/v1/sessions/:id/triggers", {
    GET: async (c) => {
      const q = parseInput(TriggersQuery, c.req.query(), "query");
      const page = { after: q.after ?? null, limit: q.limit ?? DEFAULT_PAGE };
      return c.json(unwrap(await c.get("session").call(callerOf(c), "work", "triggers", page)));
    },
    POST: async (c) => {
      const body = await bodyOf(c, CreateTrigger);
      if ("at" in body.schedule && Date.parse(body.schedule.at) <= Date.now())
        throw new ApiError("bad_request", "schedule.at: is in the past");
      return c.json(unwrap(await c.get("session").call(callerOf(c), "work", "createTrigger", body)), 201);
    },
    // `?name=` (percent-encoded, decoded once): reaches any trigger, also one named `.` or `..`
    // by older code, which no path can name after URL normalisation (docs/API.md#work-beyond-one-turn).
    DELETE: (c) => removeTrigger(c, c.req.query("name") ?? ""),
  });

  resource(app, "/v1/sessions/:id/triggers/:name", {
    DELETE: (c) => removeTrigger(c, c.req.param("name") ?? ""),
  });

  resource(app, "/v1/sessions/:id/runs", {
    GET: async (c) => {
      const q = parseInput(RunsQuery, c.req.query(), "query");
      const page = { before: q.before ?? null, limit: q.limit ?? DEFAULT_PAGE };
      return c.json(unwrap(await c.get("session").call(callerOf(c), "work", "runs", page)));
    },
  });

  resource(app, "/v1/sessions/:id/runs/:runId/resume", {
    // docs/API.md §6, §7.33: 202 `{ seq }`. One RPC: the object looks the run up before it
    // answers a bad body, invalid JSON included (docs/API.md#resume: 404 before 400).
    POST: async (c) => {
      const runId = c.req.param("runId") ?? "";
      const parsed = await parsedBody(() => bodyOf(c, ResumeRun));
      return c.json(unwrap(await c.get("session").call(callerOf(c), "work", "resume", { runId, parsed })), 202);
    },
  });
}
