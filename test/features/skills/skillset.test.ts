import { describe, expect, it } from "vitest";
import { SKILL_LIMITS, type Skillset } from "../../../src/contract";
import { contentOf, digestOf } from "../../../src/features/skills/format";
import {
  type Available,
  chooseSkills,
  foldSkillset,
  loadSkill,
  pageOf,
  skillsetOf,
  skillsSystemText,
} from "../../../src/features/skills/skillset";

const md = (name: string, description: string, body = "Steps.\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
const skill = (
  name: string,
  source: "deployment" | "principal",
  body = "Steps.\n",
  files: Record<string, string> = {},
) => {
  const text = md(name, `About ${name}.`, body);
  return { name, source, digest: digestOf(text, files), content: { skill: text, files } } satisfies Available;
};

function blobsOf(...skills: Available[]) {
  const m = new Map(skills.map((s) => [s.digest, contentOf(s.content!.skill, s.content!.files)]));
  return (sha: string) => m.get(sha) ?? null;
}

describe("choosing a session's skills", () => {
  it("takes the deployment's over a principal's of the same name, sorted by name, restricted to `only`", () => {
    const d = skill("b", "deployment");
    const p = [skill("b", "principal", "other"), skill("a", "principal")];
    expect(chooseSkills([d], p).map((s) => `${s.name}:${s.source}`)).toEqual(["a:principal", "b:deployment"]);
    expect(chooseSkills([d], p, ["a"]).map((s) => s.name)).toEqual(["a"]);
    expect(chooseSkills([d], p, [])).toEqual([]);
  });

  it("digests the entries only: the same skills give the same set, any change another", () => {
    const a = skillsetOf([skill("a", "principal")]);
    expect(skillsetOf([skill("a", "principal")])).toEqual(a);
    expect(a.skills).toEqual([{ name: "a", source: "principal", digest: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(skillsetOf([skill("a", "principal", "changed")]).digest).not.toBe(a.digest);
    expect(skillsetOf([skill("a", "deployment")]).digest).not.toBe(a.digest);
    expect(skillsetOf([]).digest).not.toBe(a.digest);
  });

  it("folds the last recorded skillset from hidden stateDeltas and keeps it otherwise", () => {
    const set = skillsetOf([skill("a", "principal")]);
    expect(foldSkillset(undefined, { actions: { stateDelta: { skillset: set } } })).toEqual(set);
    expect(foldSkillset(set, { actions: { stateDelta: { title: "x" } } })).toBe(set);
    expect(foldSkillset(set, {})).toBe(set);
  });
});

describe("what the model is shown", () => {
  it("lists every recorded skill's name and description, from the blobs", () => {
    const a = skill("alpha", "deployment");
    const b = skill("beta", "principal");
    const text = skillsSystemText(skillsetOf([a, b]), blobsOf(a, b));
    expect(text).toContain("- alpha: About alpha.");
    expect(text).toContain("- beta: About beta.");
    expect(text).toContain("load_skill");
    expect(skillsSystemText(skillsetOf([]), blobsOf())).toBe("");
    expect(skillsSystemText(undefined, blobsOf())).toBe("");
  });
});

describe("load_skill", () => {
  const a = skill("alpha", "principal", "# Alpha\nDo A.\n", { "ref/guide.md": "Guide." });
  const set: Skillset = skillsetOf([a]);
  const read = blobsOf(a);

  it("answers the body of SKILL.md (no front matter) and names its files", () => {
    expect(loadSkill(set, { name: "alpha" }, read)).toEqual({
      ok: true,
      response: { name: "alpha", digest: a.digest, files: ["ref/guide.md"], content: "# Alpha\nDo A.\n" },
    });
  });

  it("answers a file", () => {
    const r = loadSkill(set, { name: "alpha", file: "ref/guide.md" }, read);
    expect(r.ok && r.response).toMatchObject({ file: "ref/guide.md", content: "Guide." });
  });

  it("answers the version recorded, whatever else the blobs hold", () => {
    const newer = skill("alpha", "principal", "# Alpha v2\n");
    const both = blobsOf(a, newer);
    const r = loadSkill(set, { name: "alpha" }, both);
    expect(r.ok && r.response.content).toBe("# Alpha\nDo A.\n");
  });

  it("is a tool error for a name not in the set, or a file the skill lacks", () => {
    expect(loadSkill(set, { name: "beta" }, read)).toMatchObject({ ok: false, code: "unknown_skill" });
    expect(loadSkill(undefined, { name: "alpha" }, read)).toMatchObject({ ok: false, code: "unknown_skill" });
    expect(loadSkill(set, { name: "alpha", file: "nope.md" }, read)).toMatchObject({ ok: false, code: "unknown_file" });
    expect(loadSkill(set, { name: "alpha", file: "__proto__" }, read)).toMatchObject({
      ok: false,
      code: "unknown_file",
    });
    expect(loadSkill(set, { name: "alpha", offset: 1000 }, read)).toMatchObject({ ok: false, code: "bad_offset" });
  });

  it("answers a long text a page of at most loadBytes at a time, never splitting a character", () => {
    const text = `${"x".repeat(SKILL_LIMITS.loadBytes - 1)}😀tail`;
    const first = pageOf(text, 0);
    expect(first.content).toBe("x".repeat(SKILL_LIMITS.loadBytes - 1));
    expect(first.next).toBe(SKILL_LIMITS.loadBytes - 1);
    expect(pageOf(text, first.next!)).toEqual({ content: "😀tail" });
    const long = skill("long", "principal", "y".repeat(SKILL_LIMITS.loadBytes + 10));
    const r = loadSkill(skillsetOf([long]), { name: "long" }, blobsOf(long));
    expect(r.ok && (r.response.content as string).length).toBe(SKILL_LIMITS.loadBytes);
    expect(r.ok && r.response.next).toBe(SKILL_LIMITS.loadBytes);
  });
});
