/**
 * One per principal (docs/API.md#memory): its entries, outside any session. Named after the
 * principal's directory object, which every session records in seq 1, so a session reaches its
 * owner's memory without holding the owner's token hash. Thin: decisions are in ./entries.ts
 * and the SQL in ./store.ts.
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, asResult, MEMORY_LIMITS, type MemoryEntry, type Result } from "../../contract";
import { utf8Bytes } from "../../contract/frames";
import { applyMigrations } from "../../storage";
import { redactSecrets, secretNamesInUse, secretValues } from "../../tools/secrets";
import { pinnedToShow } from "./entries";
import {
  addEntry,
  deleteEntry,
  type ListQuery,
  listEntries,
  MEMORY_MIGRATIONS,
  type NewEntry,
  pinnedEntries,
  setPinned,
} from "./store";

/** The provider keys, redacted as every secret the deployment uses is. */
const PROVIDER_KEYS = ["MODEL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

export class MemoryObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => applyMigrations(ctx.storage.sql, MEMORY_MIGRATIONS));
  }

  /**
   * Stores the entry once (an id already stored answers it, `created: false`), its text redacted
   * first: over 2 KiB after redaction is 400, beyond the principal's limits 409 `memory_full`.
   */
  add(input: NewEntry): Promise<Result<{ entry: MemoryEntry; created: boolean }>> {
    return asResult(() => {
      const secrets = secretValues(this.env, [...secretNamesInUse(this.env), ...PROVIDER_KEYS]);
      const text = redactSecrets(input.text, secrets) as string;
      if (utf8Bytes(text) > MEMORY_LIMITS.textBytes)
        throw new ApiError("bad_request", `text: at most ${MEMORY_LIMITS.textBytes} UTF-8 bytes (after redaction)`);
      const r = this.ctx.storage.transactionSync(() => addEntry(this.ctx.storage.sql, { ...input, text }));
      if (!r.ok) throw new ApiError("memory_full", r.message);
      return { entry: r.entry, created: r.created };
    });
  }

  list(query: ListQuery): { entries: MemoryEntry[]; next: string | null } {
    return listEntries(this.ctx.storage.sql, query);
  }

  pin(id: string, pinned: boolean): Promise<Result<MemoryEntry>> {
    return asResult(() => {
      const entry = setPinned(this.ctx.storage.sql, id, pinned);
      if (!entry) throw new ApiError("not_found", "memory entry not found");
      return entry;
    });
  }

  forget(id: string): Promise<Result<{ forgotten: true }>> {
    return asResult(() => {
      if (!this.ctx.storage.transactionSync(() => deleteEntry(this.ctx.storage.sql, id)))
        throw new ApiError("not_found", "memory entry not found");
      return { forgotten: true as const };
    });
  }

  /** What a session's first model call shows: the pinned entries, newest first, within 4 KiB. */
  shown(): MemoryEntry[] {
    return pinnedToShow(pinnedEntries(this.ctx.storage.sql, MEMORY_LIMITS.shownBytes));
  }
}
