/**
 * The Agent Skills format (docs/API.md#skills): a `SKILL.md` whose YAML front matter names the
 * skill and says when to use it, then markdown instructions, with optional files beside it.
 * Pure: parsing and every check a skill must pass before it is stored or bundled.
 */
import { parse as parseYaml } from "yaml";
import {
  canonical,
  hasLoneSurrogate,
  SKILL_LIMITS,
  SKILL_NAME,
  type SkillInput,
  sha256Text,
  utf8Bytes,
} from "../../contract";

/** A checked skill: what is stored, and the digest of its content. */
export type Skill = {
  name: string;
  description: string;
  /** The whole `SKILL.md`, front matter included. */
  skill: string;
  files: Record<string, string>;
  /** `sha256(contentOf(skill))`: its content blob in a session is stored under this address. */
  digest: string;
};

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** A path segment of a skill's file: letters, digits, `.`, `_`, `-`, never `.` or `..`. */
const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** `SKILL.md` split into its front matter (name, description) and its body. */
export function parseSkillMd(text: string): Checked<{ name: string; description: string; body: string }> {
  const src = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const open = /^---[ \t]*\r?\n/.exec(src);
  if (!open) return fail("SKILL.md: no front matter (it must start with a line `---`)");
  const rest = src.slice(open[0].length);
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!close) return fail("SKILL.md: the front matter has no closing line `---`");
  let data: unknown;
  try {
    data = parseYaml(rest.slice(0, close.index), { uniqueKeys: true, maxAliasCount: 0, prettyErrors: false });
  } catch (err) {
    return fail(`SKILL.md: the front matter is not valid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return fail("SKILL.md: the front matter must be a YAML mapping with name and description");
  const { name, description } = data as Record<string, unknown>;
  if (typeof name !== "string" || !SKILL_NAME.test(name)) return fail("SKILL.md: name must be 1–64 of a-z, 0-9 and -");
  if (typeof description !== "string" || description.trim() === "")
    return fail("SKILL.md: description must be a non-empty string");
  if ([...description].length > SKILL_LIMITS.descriptionChars)
    return fail(`SKILL.md: description is over ${SKILL_LIMITS.descriptionChars} characters`);
  return { ok: true, value: { name, description, body: rest.slice(close.index + close[0].length) } };
}

/** Why a file path is refused, or null: relative, `/`-separated segments, never `SKILL.md` itself. */
export function badPath(path: string): string | null {
  if (path.length === 0 || path.length > SKILL_LIMITS.pathChars)
    return `files: a path is 1–${SKILL_LIMITS.pathChars} characters`;
  const segments = path.split("/");
  if (segments.some((s) => s === "." || s === ".." || !SEGMENT.test(s)))
    return `files: ${JSON.stringify(path)} is not a relative path of A-Z a-z 0-9 . _ - segments`;
  if (path === "__proto__") return "files: __proto__ is not a file name";
  if (path === "SKILL.md") return "files: SKILL.md is the skill itself, not one of its files";
  return null;
}

/**
 * Checks a skill: its `SKILL.md`, that it is named `expected` (the path's name, when given), and
 * its files (how many, their paths, all of it together at most `SKILL_LIMITS.bytes`).
 */
export function checkSkill(input: SkillInput, expected?: string): Checked<Skill> {
  if (typeof input.skill !== "string") return fail("skill: the SKILL.md text is required");
  const files = input.files ?? {};
  const texts = [input.skill, ...Object.values(files)];
  if (texts.some((t) => typeof t !== "string" || hasLoneSurrogate(t)))
    return fail("skill and files must be strings without lone UTF-16 surrogates");
  const parsed = parseSkillMd(input.skill);
  if (!parsed.ok) return parsed;
  const { name, description } = parsed.value;
  if (expected !== undefined && name !== expected)
    return fail(`SKILL.md: name ${JSON.stringify(name)} is not the skill's name ${JSON.stringify(expected)}`);
  const paths = Object.keys(files);
  if (paths.length > SKILL_LIMITS.files) return fail(`files: at most ${SKILL_LIMITS.files} files`);
  for (const p of paths) {
    const bad = badPath(p);
    if (bad) return fail(bad);
  }
  const bytes = texts.reduce((n, t) => n + utf8Bytes(t), 0);
  if (bytes > SKILL_LIMITS.bytes)
    return fail(`SKILL.md and its files are ${bytes} bytes, over ${SKILL_LIMITS.bytes} in all`);
  const sorted = Object.fromEntries(paths.sort().map((p) => [p, files[p]!]));
  return {
    ok: true,
    value: { name, description, skill: input.skill, files: sorted, digest: digestOf(input.skill, sorted) },
  };
}

/** The bytes a skill's content is stored as (canonical JSON): its sha256 is the skill's digest. */
export function contentOf(skill: string, files: Record<string, string>): string {
  return canonical({ skill, files });
}

export function digestOf(skill: string, files: Record<string, string>): string {
  return sha256Text(contentOf(skill, files));
}

/** A skill's total size in UTF-8 bytes. */
export function skillBytes(s: Pick<Skill, "skill" | "files">): number {
  return utf8Bytes(s.skill) + Object.values(s.files).reduce((n, t) => n + utf8Bytes(t), 0);
}
