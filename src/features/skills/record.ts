/**
 * Before a turn's first model call: the skills available now (the deployment's and the
 * principal's), and, when their digest differs from the last recorded, the drafts that record
 * them. Each skill's content is stored in the session's blobs first (archive first), under its
 * digest, so `load_skill` answers the recorded version whatever the principal changes later.
 */
import type { EventDraft, SessionOptions, Skillset } from "../../contract";
import type { BlobMeta } from "../../log";
import { deploymentSkills } from "./deployment";
import { contentOf } from "./format";
import type { SnapshotEntry } from "./object";
import { type Available, chooseSkills, skillsetOf } from "./skillset";
import { skillsStub } from "./stub";

/** What recording needs of the session (the runtime's turn port has it). */
export type RecordPort = {
  readonly slice: unknown;
  readonly options: SessionOptions;
  readonly principal: string | null;
  readonly env: Record<string, unknown>;
  readonly base: { turnId: string; runId: string };
  putBlob(data: string, mediaType?: string): BlobMeta;
};

/** The principal's skills now, with the content of those the last set did not have; null if unreachable. */
async function principalSkills(port: RecordPort, last: Skillset | undefined): Promise<Available[] | null> {
  const stub = port.principal ? skillsStub(port.env as unknown as Env, port.principal) : null;
  if (!stub) return [];
  const have = last?.skills.map((s) => s.digest) ?? [];
  try {
    const entries = (await stub.snapshot(have)) as SnapshotEntry[];
    return entries.map((e) => ({ ...e, source: "principal" as const }));
  } catch (err) {
    console.error(`highwater: skills: the principal's skills could not be read: ${(err as Error).message}`);
    return null;
  }
}

export async function recordSkillset(port: RecordPort): Promise<EventDraft[]> {
  // A session that names its tools (fixed at creation) names tools of GET /v1/tools only, never
  // load_skill: it is shown no skills, and nothing is asked.
  if (port.options.tools) return [];
  const last = port.slice as Skillset | undefined;
  const own = await principalSkills(port, last);
  // Unreachable now: the session keeps the set it last recorded (or none) rather than drop skills.
  if (own === null) return [];
  const deployed: Available[] = [...deploymentSkills().values()].map((s) => ({
    name: s.name,
    source: "deployment",
    digest: s.digest,
    content: { skill: s.skill, files: s.files },
  }));
  const chosen = chooseSkills(deployed, own, port.options.skills);
  const set = skillsetOf(chosen);
  if (set.digest === last?.digest || (!last && chosen.length === 0)) return [];
  for (const s of chosen) {
    if (!s.content) continue;
    const meta = port.putBlob(contentOf(s.content.skill, s.content.files), "application/json");
    if (meta.sha256 !== s.digest) throw new Error(`skill ${s.name}: its content does not match its digest`);
  }
  return [
    {
      author: "runtime",
      modelVisibility: "hidden",
      turnId: port.base.turnId,
      runId: port.base.runId,
      actions: { stateDelta: { skillset: set } },
    },
  ];
}
