import { z } from "zod";
import { SKILL_NAME, type Skillset } from "../../contract";
import { toolError } from "../../tools/builtin/text";
import type { ToolDefinition } from "../../tools/types";
import { type LoadArgs, loadSkill } from "./skillset";

const LoadSkillInput = z.strictObject({
  name: z.string().regex(SKILL_NAME, "1–64 of a-z, 0-9 and -").describe("The skill's name, as listed under Skills."),
  file: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("One of the skill's files (default: its SKILL.md instructions)."),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Where to go on reading a long text: the `next` of the previous answer."),
});

/**
 * `load_skill` over a turn's recorded skillset (docs/API.md#skills): `read`, so a call cut by a
 * crash is run again, and answers the same bytes from the session's own blobs.
 */
export function loadSkillTool(set: Skillset): ToolDefinition<LoadArgs> {
  return {
    name: "load_skill",
    description:
      "Load a skill's instructions (the body of its SKILL.md), or one of its files, by the skill's name. Long texts come a page at a time: pass `next` as `offset`.",
    input: LoadSkillInput as z.ZodType<LoadArgs>,
    effect: () => "read",
    async run(args, ctx) {
      const answer = loadSkill(set, args, (sha) => ctx.blobs.readText(sha));
      return answer.ok ? { status: "ok", response: answer.response } : toolError(answer.code, answer.message);
    },
  };
}
