/**
 * One principal's skills (docs/API.md#skills): a Durable Object per principal, outside every
 * session. A session reads a snapshot of it before a turn and records in its own log what it
 * was shown; replacing or deleting a skill here never changes a session's history.
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, asResult, type Result, SKILL_LIMITS, type SkillInfo } from "../../contract";
import { applyMigrations } from "../../storage";
import { rows, run } from "../../storage/sql";
import { type Skill, skillBytes } from "./format";

const MIGRATIONS = [
  {
    id: "0001_skills",
    // A file's text is a row of its own: a row holds at most 2 MB, a skill up to 1 MiB of text.
    sql: `CREATE TABLE skills (name TEXT PRIMARY KEY, description TEXT NOT NULL, digest TEXT NOT NULL,
  skill TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE skill_files (name TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, PRIMARY KEY (name, path))`,
  },
];

/** A stored skill as a session's snapshot has it: the content only for digests it lacks. */
export type SnapshotEntry = {
  name: string;
  digest: string;
  content?: { skill: string; files: Record<string, string> };
};

export class SkillsObject extends DurableObject<Env> {
  readonly #sql = this.ctx.storage.sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => applyMigrations(ctx.storage.sql, MIGRATIONS));
  }

  /** Stores (or replaces) a checked skill; 409 past the per-principal limits, nothing written. */
  put(skill: Skill): Promise<Result<{ created: boolean }>> {
    return asResult(() =>
      this.ctx.storage.transactionSync(() => {
        const others = rows<{ n: number; bytes: number }>(this.#sql)`
          SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM skills WHERE name != ${skill.name}`[0]!;
        const created = this.#has(skill.name) === false;
        if (others.n + 1 > SKILL_LIMITS.perPrincipal)
          throw new ApiError("conflict", `a principal stores at most ${SKILL_LIMITS.perPrincipal} skills`);
        const bytes = skillBytes(skill);
        if (others.bytes + bytes > SKILL_LIMITS.principalBytes)
          throw new ApiError(
            "conflict",
            `a principal's skills hold at most ${SKILL_LIMITS.principalBytes} bytes in all`,
          );
        this.#delete(skill.name);
        run(this.#sql)`INSERT INTO skills (name, description, digest, skill, bytes, updated_at)
          VALUES (${skill.name}, ${skill.description}, ${skill.digest}, ${skill.skill}, ${bytes}, ${new Date().toISOString()})`;
        for (const [path, content] of Object.entries(skill.files))
          run(this.#sql)`INSERT INTO skill_files (name, path, content) VALUES (${skill.name}, ${path}, ${content})`;
        return { created };
      }),
    );
  }

  list(): Omit<SkillInfo, "source">[] {
    return rows<{ name: string; description: string; digest: string }>(this.#sql)`
      SELECT name, description, digest FROM skills ORDER BY name`;
  }

  get(name: string): (Omit<SkillInfo, "source"> & { skill: string; files: Record<string, string> }) | null {
    const row = rows<{ name: string; description: string; digest: string; skill: string }>(this.#sql)`
      SELECT name, description, digest, skill FROM skills WHERE name = ${name}`[0];
    return row ? { ...row, files: this.#files(name) } : null;
  }

  /** Whether it was there. */
  delete(name: string): boolean {
    return this.ctx.storage.transactionSync(() => {
      const had = this.#has(name);
      this.#delete(name);
      return had;
    });
  }

  /** Every skill, with the content of those whose digest is not in `have` (one read, one state). */
  snapshot(have: string[]): SnapshotEntry[] {
    const known = new Set(have);
    return rows<{ name: string; digest: string; skill: string }>(this.#sql)`
      SELECT name, digest, skill FROM skills ORDER BY name`.map((r) =>
      known.has(r.digest)
        ? { name: r.name, digest: r.digest }
        : { name: r.name, digest: r.digest, content: { skill: r.skill, files: this.#files(r.name) } },
    );
  }

  #has(name: string): boolean {
    return rows(this.#sql)`SELECT 1 FROM skills WHERE name = ${name}`.length > 0;
  }

  #delete(name: string): void {
    run(this.#sql)`DELETE FROM skills WHERE name = ${name}`;
    run(this.#sql)`DELETE FROM skill_files WHERE name = ${name}`;
  }

  #files(name: string): Record<string, string> {
    return Object.fromEntries(
      rows<{ path: string; content: string }>(this.#sql)`
        SELECT path, content FROM skill_files WHERE name = ${name} ORDER BY path`.map((f) => [f.path, f.content]),
    );
  }
}
