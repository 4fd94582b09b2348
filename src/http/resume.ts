import { ApiError, MAX_TEXT_BYTES, unwrap, utf8Bytes } from "../contract";
import { readJson } from "./body";
import { resource } from "./routing";
import { parseInput, ResumeRun } from "./schemas";
import { parsedBody } from "./turns";
import { callerOf, type EdgeApp } from "./types";

/** `POST /v1/sessions/:id/runs/:runId/resume` (docs/API.md §6, §7.33): 202 `{ seq }`. */
export function resumeRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/runs/:runId/resume", {
    POST: async (c) => {
      const runId = c.req.param("runId") ?? "";
      // One RPC: the object looks the run up before it answers a bad body, invalid JSON
      // included (docs/API.md#resume: 404 before 400).
      const body = await parsedBody(async () => {
        const raw = await readJson(c, undefined);
        const text = (raw as { text?: unknown } | null | undefined)?.text;
        // Resume text follows the message limits (docs/API.md §7.33): 413 from the raw value.
        if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
          throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
        return parseInput(ResumeRun, raw);
      });
      return c.json(unwrap(await c.get("session").resume(callerOf(c), runId, body)), 202);
    },
  });
}
