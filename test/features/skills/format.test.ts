import { describe, expect, it } from "vitest";
import { canonical, SKILL_LIMITS, sha256Text } from "../../../src/contract";
import { buildDeploymentSkills } from "../../../src/features/skills/deployment";
import { badPath, checkSkill, parseSkillMd } from "../../../src/features/skills/format";

const md = (front: string, body = "Do the thing.\n") => `---\n${front}\n---\n${body}`;
const GOOD = md("name: release-notes\ndescription: How we write release notes.");

function refused(input: Parameters<typeof checkSkill>[0], expected?: string): string {
  const r = checkSkill(input, expected);
  if (r.ok) throw new Error("expected a refusal");
  return r.message;
}

describe("SKILL.md front matter", () => {
  it("parses name, description and the body after the front matter", () => {
    const r = parseSkillMd(
      md("name: a-1\ndescription: >\n  Folded\n  text.\nlicense: MIT\nmetadata:\n  v: 1", "# Steps\n1. x\n"),
    );
    expect(r).toEqual({ ok: true, value: { name: "a-1", description: "Folded text.\n", body: "# Steps\n1. x\n" } });
  });

  it("accepts CRLF lines and a byte-order mark", () => {
    const r = parseSkillMd("\uFEFF---\r\nname: x\r\ndescription: d\r\n---\r\nbody");
    expect(r.ok && r.value).toMatchObject({ name: "x", description: "d", body: "body" });
  });

  it.each([
    ["no front matter", "# Release notes\nname: x", /no front matter/],
    ["an unclosed front matter", "---\nname: x\ndescription: d\n", /no closing line/],
    ["invalid YAML", md("name: [x\ndescription: d"), /not valid YAML/],
    ["a duplicated key", md("name: x\nname: y\ndescription: d"), /not valid YAML/],
    ["an alias", md("a: &a x\nname: *a\ndescription: d"), /not valid YAML/],
    ["a list, not a mapping", md("- name\n- description"), /must be a YAML mapping/],
    ["an empty front matter", md(""), /must be a YAML mapping/],
    ["no name", md("description: d"), /name must be/],
    ["a name with capitals", md("name: Release\ndescription: d"), /name must be/],
    ["a name with a space", md("name: release notes\ndescription: d"), /name must be/],
    ["a name of 65 characters", md(`name: ${"a".repeat(65)}\ndescription: d`), /name must be/],
    ["a number as name", md("name: 12\ndescription: d"), /name must be/],
    ["no description", md("name: x"), /description must be/],
    ["a blank description", md("name: x\ndescription: '  '"), /description must be/],
    ["a description that is a mapping", md("name: x\ndescription:\n  a: b"), /description must be/],
    ["a description over 1,024 characters", md(`name: x\ndescription: ${"é".repeat(1025)}`), /over 1024 characters/],
  ])("refuses %s", (_what, text, message) => {
    const r = parseSkillMd(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });

  it("takes a description of exactly 1,024 characters and a name of 64", () => {
    const r = parseSkillMd(md(`name: ${"a".repeat(64)}\ndescription: ${"é".repeat(1024)}`));
    expect(r.ok).toBe(true);
  });
});

describe("checkSkill", () => {
  it("answers the skill with its files sorted and the digest of its canonical content", () => {
    const r = checkSkill({ skill: GOOD, files: { "b.md": "B", "a/x.txt": "A" } }, "release-notes");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.value.files)).toEqual(["a/x.txt", "b.md"]);
    expect(r.value.digest).toBe(sha256Text(canonical({ skill: GOOD, files: { "a/x.txt": "A", "b.md": "B" } })));
    expect(r.value.description).toBe("How we write release notes.");
  });

  it("refuses a name that is not the path's", () => {
    expect(refused({ skill: GOOD }, "other")).toMatch(/is not the skill's name "other"/);
  });

  it("refuses a skill that is not a string, and lone surrogates", () => {
    expect(refused({ skill: 1 as unknown as string })).toMatch(/skill: the SKILL.md text/);
    expect(refused({ skill: GOOD, files: { "a.md": "\ud800" } })).toMatch(/lone UTF-16 surrogates/);
  });

  it(`refuses more than ${SKILL_LIMITS.files} files, and takes ${SKILL_LIMITS.files}`, () => {
    const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.md`, "x"]));
    expect(checkSkill({ skill: GOOD, files: files(SKILL_LIMITS.files) }).ok).toBe(true);
    expect(refused({ skill: GOOD, files: files(SKILL_LIMITS.files + 1) })).toMatch(/at most 64 files/);
  });

  it("refuses more than 1 MiB in all (SKILL.md and files, UTF-8 bytes), and takes exactly 1 MiB", () => {
    const rest = SKILL_LIMITS.bytes - new TextEncoder().encode(GOOD).length;
    expect(checkSkill({ skill: GOOD, files: { "big.txt": "x".repeat(rest) } }).ok).toBe(true);
    expect(refused({ skill: GOOD, files: { "big.txt": `${"x".repeat(rest - 1)}é` } })).toMatch(/over 1048576 in all/);
  });

  it.each([
    ["", /1–255 characters/],
    ["x".repeat(256), /1–255 characters/],
    ["/etc/passwd", /not a relative path/],
    ["../up.md", /not a relative path/],
    ["a/./b.md", /not a relative path/],
    ["a//b.md", /not a relative path/],
    ["a\\b.md", /not a relative path/],
    ["with space.md", /not a relative path/],
    ["SKILL.md", /the skill itself/],
    ["__proto__", /not a file name/],
  ])("refuses the file path %j", (path, message) => {
    expect(badPath(path)).toMatch(message);
    expect(refused({ skill: GOOD, files: { [path]: "x" } })).toMatch(message);
  });

  it("takes nested relative paths", () => {
    expect(badPath("scripts/build.sh")).toBeNull();
    expect(badPath("ref/v1.2/notes_a-b.md")).toBeNull();
  });
});

describe("deployment skills", () => {
  it("are checked at start-up: a bad one throws naming it", () => {
    expect(() => buildDeploymentSkills([{ name: "release-notes", skill: "no front matter" }])).toThrow(
      /skills\[0\] "release-notes": SKILL.md: no front matter/,
    );
    expect(() => buildDeploymentSkills([{ name: "other", skill: GOOD }])).toThrow(
      /skills\[0\] "other": .*not the skill's name/,
    );
    expect(() =>
      buildDeploymentSkills([
        { name: "release-notes", skill: GOOD },
        { name: "release-notes", skill: GOOD },
      ]),
    ).toThrow(/skills\[1\] "release-notes": "release-notes" is defined twice/);
    const ok = buildDeploymentSkills([{ name: "release-notes", skill: GOOD }]);
    expect(ok.get("release-notes")?.description).toBe("How we write release notes.");
  });
});
