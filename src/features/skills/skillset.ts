/**
 * A session's skillset (docs/API.md#skills): which skills its model is shown, recorded as a
 * hidden `stateDelta.skillset` when its digest changes, each skill's content stored in the
 * session's blobs under its digest first. What the model is shown and what `load_skill` answers
 * are read from that record and those blobs alone, so a request rebuilt after a restart, and a
 * `load_skill` run again after a crash, give the same bytes.
 */
import { canonical, type Event, SKILL_LIMITS, type Skillset, type SkillsetEntry, sha256Text } from "../../contract";
import { parseSkillMd } from "./format";

/** A skill available now: from the deployment or the principal, with its content when the session may lack it. */
export type Available = SkillsetEntry & { content?: { skill: string; files: Record<string, string> } };

/**
 * The skills a session is shown: the deployment's, then the principal's whose names the
 * deployment does not use, restricted to `only` (`SessionOptions.skills`) when given; by name.
 */
export function chooseSkills(deployed: Available[], own: Available[], only?: readonly string[]): Available[] {
  const taken = new Set(deployed.map((s) => s.name));
  const wanted = only ? new Set(only) : null;
  return [...deployed, ...own.filter((s) => !taken.has(s.name))]
    .filter((s) => !wanted || wanted.has(s.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The record of a set of skills: its entries and the digest of their canonical JSON. */
export function skillsetOf(skills: Available[]): Skillset {
  const entries = skills.map(({ name, source, digest }) => ({ name, source, digest }));
  return { digest: sha256Text(canonical(entries)), skills: entries };
}

/** The summary's slice: the last recorded skillset (an open turn keeps it until it closes). */
export function foldSkillset(slice: unknown, e: Pick<Event, "actions">): unknown {
  const set = e.actions?.stateDelta?.skillset as Skillset | undefined;
  return set && typeof set.digest === "string" && Array.isArray(set.skills) ? set : slice;
}

export type ReadBlob = (sha256: string) => string | null;
type Content = { skill: string; files: Record<string, string> };

function contentOfBlob(readBlob: ReadBlob, digest: string): Content {
  const text = readBlob(digest);
  if (text === null) throw new Error(`skill blob ${digest} is missing`);
  return JSON.parse(text) as Content;
}

const descriptions = new Map<string, string>();

/** A recorded skill's description, parsed from its blob (kept per digest: the same every call). */
function descriptionOf(readBlob: ReadBlob, digest: string): string {
  let d = descriptions.get(digest);
  if (d === undefined) {
    const parsed = parseSkillMd(contentOfBlob(readBlob, digest).skill);
    d = parsed.ok ? parsed.value.description.replace(/\s+/g, " ").trim() : "";
    if (descriptions.size >= 512) descriptions.clear();
    descriptions.set(digest, d);
  }
  return d;
}

/** What the model is shown of the recorded skillset (empty when it has no skills). */
export function skillsSystemText(set: Skillset | undefined, readBlob: ReadBlob): string {
  if (!set || set.skills.length === 0) return "";
  const lines = set.skills.map((s) => `- ${s.name}: ${descriptionOf(readBlob, s.digest)}`);
  return [
    "## Skills",
    "Skills hold instructions for particular tasks. When a task matches a skill's description, call load_skill with its name before you start, and follow what it says; load_skill with `file` reads one of the files it names.",
    ...lines,
  ].join("\n");
}

/** One page of `text` from character `offset`: at most `SKILL_LIMITS.loadBytes` UTF-8 bytes, whole characters. */
export function pageOf(text: string, offset: number): { content: string; next?: number } {
  let bytes = 0;
  let end = offset;
  while (end < text.length) {
    const c = text.codePointAt(end)!;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (bytes + size > SKILL_LIMITS.loadBytes) break;
    bytes += size;
    end += c >= 0x10000 ? 2 : 1;
  }
  return { content: text.slice(offset, end), ...(end < text.length ? { next: end } : {}) };
}

export type LoadArgs = { name: string; file?: string; offset?: number };
export type LoadAnswer =
  | { ok: true; response: Record<string, unknown> }
  | { ok: false; code: "unknown_skill" | "unknown_file" | "bad_offset"; message: string };

/**
 * `load_skill`: the body of `SKILL.md` (after its front matter) or one of its files, of the
 * version in the turn's recorded skillset, one page at a time.
 */
export function loadSkill(set: Skillset | undefined, args: LoadArgs, readBlob: ReadBlob): LoadAnswer {
  const entry = set?.skills.find((s) => s.name === args.name);
  if (!entry) {
    const names = set?.skills.map((s) => s.name).join(", ") || "none";
    return {
      ok: false,
      code: "unknown_skill",
      message: `no skill ${args.name} in this session (its skills: ${names})`,
    };
  }
  const content = contentOfBlob(readBlob, entry.digest);
  const files = Object.keys(content.files);
  let text: string;
  if (args.file === undefined) {
    const parsed = parseSkillMd(content.skill);
    text = parsed.ok ? parsed.value.body : content.skill;
  } else if (Object.hasOwn(content.files, args.file)) {
    text = content.files[args.file]!;
  } else {
    return {
      ok: false,
      code: "unknown_file",
      message: `skill ${args.name} has no file ${args.file} (its files: ${files.join(", ") || "none"})`,
    };
  }
  const offset = args.offset ?? 0;
  if (offset > text.length)
    return { ok: false, code: "bad_offset", message: `offset ${offset} is past the end (${text.length})` };
  const page = pageOf(text, offset);
  return {
    ok: true,
    response: {
      name: entry.name,
      digest: entry.digest,
      ...(args.file === undefined ? { files } : { file: args.file }),
      ...(offset > 0 ? { offset } : {}),
      content: page.content,
      ...(page.next !== undefined ? { next: page.next } : {}),
    },
  };
}
