import { ApiError, MAX_TEXT_BYTES, unwrap, utf8Bytes } from "../contract";
import { readJson } from "./body";
import { resource } from "./routing";
import { parseInput, ResumeRun } from "./schemas";
import type { EdgeApp } from "./types";

/** `POST /v1/sessions/:id/runs/:runId/resume` (CONTRACT §6, §7.33): 202 `{ seq }`. */
export function resumeRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/runs/:runId/resume", {
    POST: async (c) => {
      const runId = c.req.param("runId") ?? "";
      // The run is looked up before the body is validated (CONTRACT §7.1).
      if (!(await c.get("session").hasRun(runId))) throw new ApiError("not_found", "unknown run");
      const raw = await readJson(c, undefined);
      const text = (raw as { text?: unknown } | null | undefined)?.text;
      // Resume text follows the message limits (CONTRACT §7.33): 413 from the raw value.
      if (typeof text === "string" && utf8Bytes(text) > MAX_TEXT_BYTES)
        throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
      const body = parseInput(ResumeRun, raw);
      const answer = unwrap(await c.get("session").resume({ runId, waitId: body.waitId, text: body.text ?? "" }));
      return c.json(answer, 202);
    },
  });
}
