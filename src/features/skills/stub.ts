import type { SkillsObject } from "./object";

/** A principal's skills object, or null where the deployment has no `SKILLS` binding. */
export function skillsStub(env: Env, principal: string): DurableObjectStub<SkillsObject> | null {
  const ns = env.SKILLS;
  return ns ? ns.get(ns.idFromName(`principal:${principal}`)) : null;
}
