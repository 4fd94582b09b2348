import { ApiError, MAX_TEXT_BYTES, unwrap, utf8Bytes } from "../contract";
import { readJson, readNoBody } from "./body";
import { resource } from "./routing";
import { Decision, DismissNotice, PostMessage, parseInput } from "./schemas";
import type { EdgeApp } from "./types";

/** What moves a turn: messages, stop, approval decisions. */
export function turnRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/messages", {
    POST: async (c) => {
      const raw = await readJson(c, undefined);
      const text = (raw as { text?: unknown } | null | undefined)?.text;
      // 413 for the text is decided from the raw value, before the schema (CONTRACT §2).
      if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
        throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
      const body = parseInput(PostMessage, raw);
      return c.json(unwrap(await c.get("session").postMessage({ ...body, source: "http" })), 202);
    },
  });

  resource(app, "/v1/sessions/:id/stop", {
    POST: async (c) => {
      await readNoBody(c);
      return c.json(unwrap(await c.get("session").stop()));
    },
  });

  resource(app, "/v1/sessions/:id/approvals/:requestId", {
    POST: async (c) => {
      const requestId = c.req.param("requestId") ?? "";
      // The approval is looked up before its body is validated (CONTRACT §7.1).
      if (!(await c.get("session").hasApproval(requestId))) throw new ApiError("not_found", "unknown approval");
      const body = parseInput(Decision, await readJson(c, undefined));
      return c.json(unwrap(await c.get("session").decide({ requestId, ...body })));
    },
  });

  resource(app, "/v1/sessions/:id/recovery-notice/dismiss", {
    POST: async (c) => {
      const body = parseInput(DismissNotice, await readJson(c, undefined));
      return c.json(unwrap(await c.get("session").dismissRecoveryNotice(body)));
    },
  });
}
