/** Skills (docs/API.md#skills): the deployment's and each principal's, shown by name and loaded on demand. */
import type { Feature } from "../types";
import { skillRoutes } from "./routes";

export { buildDeploymentSkills, type DeploymentSkill, installDeploymentSkills } from "./deployment";
export { SkillsObject } from "./object";

export const skills: Feature = {
  name: "skills",
  routes: skillRoutes,
};
