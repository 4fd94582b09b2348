import { z } from "zod";
import type { ToolDefinition } from "../types";
import { toolError } from "./text";

const WaitForInput = z.strictObject({
  reason: z.string().min(1).max(4096).describe("What you are waiting for, shown to the human who resumes the run."),
});

/**
 * docs/API.md §6: pauses the run until a human resumes it with the wait's `waitId`; the answer is
 * `{ text }`, the resume text (§7.33). The runtime carries it out (the dispatch starts the wait,
 * the resume appends the response), so `run` is never called for it.
 */
export const waitForTool: ToolDefinition<z.infer<typeof WaitForInput>> = {
  name: "wait_for",
  description:
    "Pause this run until a human resumes it, for example to wait for an external event or a decision. The result is { text }: what the human wrote when resuming.",
  input: WaitForInput,
  effect: () => "idempotent",
  async run() {
    return toolError("not_runnable", "wait_for is carried out by the runtime: it waits for a resume");
  },
};
