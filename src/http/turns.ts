import { ApiError, unwrap } from "../contract/errors";
import { MAX_TEXT_BYTES, utf8Bytes } from "../contract/frames";
import type { Parsed } from "../session/reads";
import { readJson, readNoBody } from "./body";
import { resource } from "./routing";
import { Decision, DismissNotice, InputAnswerBody, PostMessage, parseInput } from "./schemas";
import { callerOf, type EdgeApp } from "./types";

/** A parse that fails with a 400 as a value, for the object to answer after its 404 checks. */
export async function parsedBody<T>(parse: () => Promise<T> | T): Promise<Parsed<T>> {
  try {
    return { ok: true, value: await parse() };
  } catch (err) {
    if (err instanceof ApiError && err.code === "bad_request") return { ok: false, message: err.message };
    throw err;
  }
}

/** What moves a turn: messages, stop, approval decisions. */
export function turnRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/messages", {
    POST: async (c) => {
      const raw = await readJson(c, undefined);
      const text = (raw as { text?: unknown } | null | undefined)?.text;
      // 413 for the text is decided from the raw value, before the schema (docs/API.md §2).
      if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
        throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
      const body = parseInput(PostMessage, raw);
      return c.json(unwrap(await c.get("session").postMessage(callerOf(c), { ...body, source: "http" })), 202);
    },
  });

  resource(app, "/v1/sessions/:id/stop", {
    POST: async (c) => {
      await readNoBody(c);
      return c.json(unwrap(await c.get("session").stop(callerOf(c))));
    },
  });

  resource(app, "/v1/sessions/:id/approvals/:requestId", {
    POST: async (c) => {
      const requestId = c.req.param("requestId") ?? "";
      // One RPC: the object looks the approval up before it answers a bad body (docs/API.md §7.1).
      const body = await parsedBody(() => readJson(c, undefined).then((raw) => parseInput(Decision, raw)));
      return c.json(unwrap(await c.get("session").decide(callerOf(c), requestId, body)));
    },
  });

  resource(app, "/v1/sessions/:id/inputs/:requestId", {
    POST: async (c) => {
      const requestId = c.req.param("requestId") ?? "";
      // The object looks the question up before it answers a bad body (404 before 400).
      const body = await parsedBody(() => readJson(c, undefined).then((raw) => parseInput(InputAnswerBody, raw)));
      return c.json(unwrap(await c.get("session").answerInput(callerOf(c), requestId, body)));
    },
  });

  resource(app, "/v1/sessions/:id/recovery-notice/dismiss", {
    POST: async (c) => {
      const body = await parsedBody(() => readJson(c, undefined).then((raw) => parseInput(DismissNotice, raw)));
      return c.json(unwrap(await c.get("session").dismissRecoveryNotice(callerOf(c), body)));
    },
  });
}
