/**
 * `/v1/skills` (docs/API.md#skills): the deployment's skills and the caller's own, which live in
 * the caller's `SkillsObject`. Every check runs before the object is asked, so a refused skill
 * writes nothing.
 */
import { z } from "zod";
import { ApiError, SKILL_NAME, type SkillDetail, type SkillInfo, unwrap } from "../../contract";
import { readJson, readNoBody } from "../../http/body";
import { resource } from "../../http/routing";
import { parseInput } from "../../http/schemas";
import type { EdgeApp, EdgeContext } from "../../http/types";
import { deploymentSkills } from "./deployment";
import { checkSkill } from "./format";
import type { SkillsObject } from "./object";
import { skillsStub } from "./stub";

const PutSkill = z.strictObject({
  skill: z.string(),
  files: z.record(z.string(), z.string()).optional(),
});

function ownStore(c: EdgeContext): DurableObjectStub<SkillsObject> {
  const stub = skillsStub(c.env, c.get("principal"));
  if (!stub) throw new ApiError("not_configured", "this deployment stores no skills of its own (no SKILLS binding)");
  return stub;
}

/** A malformed name is an unknown skill on reads: 404, as for any unknown sub-resource. */
function nameOf(c: EdgeContext): string {
  const name = c.req.param("name") ?? "";
  if (!SKILL_NAME.test(name)) throw new ApiError("not_found", "unknown skill");
  return name;
}

export async function listSkills(env: Env, principal: string): Promise<SkillInfo[]> {
  const deployed = [...deploymentSkills().values()].map(
    (s): SkillInfo => ({ name: s.name, description: s.description, source: "deployment", digest: s.digest }),
  );
  const stub = skillsStub(env, principal);
  const own = stub ? (await stub.list()).map((s): SkillInfo => ({ ...s, source: "principal" })) : [];
  return [...deployed, ...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function skillRoutes(app: EdgeApp): void {
  resource(app, "/v1/skills", {
    GET: async (c) => c.json({ skills: await listSkills(c.env, c.get("principal")) }),
  });

  resource(app, "/v1/skills/:name", {
    GET: async (c) => {
      const name = nameOf(c);
      const deployed = deploymentSkills().get(name);
      if (deployed) {
        const { name: n, description, digest, skill, files } = deployed;
        return c.json({ name: n, description, source: "deployment", digest, skill, files } satisfies SkillDetail);
      }
      const own = await skillsStub(c.env, c.get("principal"))?.get(name);
      if (!own) throw new ApiError("not_found", "unknown skill");
      return c.json({ ...own, source: "principal" } satisfies SkillDetail);
    },
    PUT: async (c) => {
      const name = c.req.param("name") ?? "";
      if (!SKILL_NAME.test(name)) throw new ApiError("bad_request", "name: 1–64 of a-z, 0-9 and -");
      if (deploymentSkills().has(name))
        throw new ApiError("conflict", `${name} is the name of one of the deployment's skills`);
      const body = parseInput(PutSkill, await readJson(c, undefined));
      const checked = checkSkill(body, name);
      if (!checked.ok) throw new ApiError("bad_request", checked.message);
      const { created } = unwrap(await ownStore(c).put(checked.value));
      const s = checked.value;
      const info: SkillInfo = { name, description: s.description, source: "principal", digest: s.digest };
      return c.json(info, created ? 201 : 200);
    },
    DELETE: async (c) => {
      const name = nameOf(c);
      await readNoBody(c);
      if (await ownStore(c).delete(name)) return c.body(null, 204);
      if (deploymentSkills().has(name))
        throw new ApiError("conflict", `${name} is one of the deployment's skills: it cannot be deleted`);
      throw new ApiError("not_found", "unknown skill");
    },
  });
}
