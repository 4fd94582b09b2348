/** Skills as they cross the wire (docs/API.md#skills): the routes' bodies and the hidden `stateDelta.skillset`. */

/** A skill's name: lowercase letters, digits and hyphens, 1–64 (the Agent Skills format). */
export const SKILL_NAME = /^[a-z0-9-]{1,64}$/;

/** docs/API.md#skills: what one skill may hold, and what one principal may store. */
export const SKILL_LIMITS = {
  /** A description, in characters. */
  descriptionChars: 1024,
  /** Files beside `SKILL.md`. */
  files: 64,
  /** `SKILL.md` and its files together, in UTF-8 bytes. */
  bytes: 1_048_576,
  /** A file's path, in characters. */
  pathChars: 255,
  /** Skills one principal may store. */
  perPrincipal: 64,
  /** All of one principal's skills together, in UTF-8 bytes. */
  principalBytes: 8 * 1_048_576,
  /** What one `load_skill` answers of a text, in UTF-8 bytes (the rest by `offset`). */
  loadBytes: 65_536,
} as const;

/** `PUT /v1/skills/:name`: the largest body (its texts JSON-escaped); past `SKILL_LIMITS.bytes` of text it is 400. */
export const MAX_SKILL_BODY_BYTES = 4 * 1_048_576;

export type SkillSourceKind = "deployment" | "principal";

/** `GET /v1/skills`: one entry. `digest` is the sha256 of the skill's content (`SKILL.md` and files). */
export type SkillInfo = { name: string; description: string; source: SkillSourceKind; digest: string };

/** `GET /v1/skills/:name`: the entry with its content. */
export type SkillDetail = SkillInfo & { skill: string; files: Record<string, string> };

/** `PUT /v1/skills/:name`: the body. */
export type SkillInput = { skill: string; files?: Record<string, string> };

/** One skill of a recorded skillset. */
export type SkillsetEntry = { name: string; source: SkillSourceKind; digest: string };

/** The hidden `stateDelta.skillset`, recorded when the set a session's model is shown changes. */
export type Skillset = { digest: string; skills: SkillsetEntry[] };
