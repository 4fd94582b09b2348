/**
 * The deployment's skills (docs/API.md#skills): bundled at build time and handed to
 * `createHighwater({ skills })`, checked once at start-up, the same for every principal.
 */
import type { SkillInput } from "../../contract";
import { checkSkill, type Skill } from "./format";

/** One bundled skill: its folder's name and the folder's `SKILL.md` text and files. */
export type DeploymentSkill = SkillInput & { name: string };

let DEPLOYMENT: ReadonlyMap<string, Skill> = new Map();

/** Checks every skill; throws naming the first bad one (its index and folder name). */
export function buildDeploymentSkills(list: readonly DeploymentSkill[]): ReadonlyMap<string, Skill> {
  const out = new Map<string, Skill>();
  for (const [i, entry] of list.entries()) {
    const label = `skills[${i}] ${JSON.stringify(entry?.name ?? "")}`;
    if (typeof entry?.name !== "string") throw new TypeError(`${label}: a skill needs its folder's name`);
    const checked = checkSkill(entry, entry.name);
    if (!checked.ok) throw new TypeError(`${label}: ${checked.message}`);
    if (out.has(entry.name)) throw new TypeError(`${label}: "${entry.name}" is defined twice`);
    out.set(entry.name, checked.value);
  }
  return out;
}

/** Makes `skills` the deployment skills of this isolate (one deployment per isolate). */
export function installDeploymentSkills(skills: ReadonlyMap<string, Skill>): void {
  DEPLOYMENT = skills;
}

export function deploymentSkills(): ReadonlyMap<string, Skill> {
  return DEPLOYMENT;
}
