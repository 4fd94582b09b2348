/** Skills (docs/API.md#skills): the deployment's and each principal's, shown by name and loaded on demand. */
import { MAX_SKILL_BODY_BYTES, type Skillset } from "../../contract";
import type { Feature } from "../types";
import { recordSkillset } from "./record";
import { skillRoutes } from "./routes";
import { foldSkillset, skillsSystemText } from "./skillset";
import { loadSkillTool } from "./tool";

export { buildDeploymentSkills, type DeploymentSkill, installDeploymentSkills } from "./deployment";

export const skills: Feature = {
  name: "skills",
  // A sub-session sees what its parent sees (docs/API.md §7.31).
  inheritOptions: ["skills"],
  routes: skillRoutes,
  // A skill's text is JSON-escaped in its PUT body: room for 1 MiB of it (docs/API.md#skills).
  bodyLimits: {
    "/v1/skills/*": { maxBytes: MAX_SKILL_BODY_BYTES, message: `body over ${MAX_SKILL_BODY_BYTES} bytes` },
  },
  // The slice is the last recorded skillset: recorded before a turn's first model call only, so
  // a turn keeps its set until it closes.
  fold: foldSkillset,
  beforeTurn: recordSkillset,
  context: (view) => {
    const set = view.slice as Skillset | undefined;
    if (!set || set.skills.length === 0) return {};
    return { system: skillsSystemText(set, view.readBlob), tools: [loadSkillTool(set)] };
  },
};
