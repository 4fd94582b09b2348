import { z } from "zod";
import { type EventDraft, type EventStore, isBlobRef } from "../log";
import type { SqlLike } from "../storage";

/** The five sections every checkpoint summary has, in this order (docs/design.md §6). */
export const CHECKPOINT_SECTIONS = [
  "Goal and deliverable",
  "Progress and next steps",
  "Constraints, decisions and facts",
  "Open items",
  "Key files and event references",
] as const;

/** A result shown as a placeholder from a checkpoint on (archived at that compaction). */
export type PlaceholderMark = { callId: string; sha256: string; bytes: number; preview: string };

/** How a checkpoint's summary was made: by the model, by the deterministic extract, or carried unchanged. */
export type CheckpointMethod = "model" | "extract" | "carried";

/** `stateDelta.checkpoint` as appended to the log (docs/API.md §3), plus what the context needs from it. */
export type CheckpointPayload = {
  id: string;
  throughSeq: number;
  sourceDigest: string;
  prevId: string | null;
  summary: string;
  placeholders: PlaceholderMark[];
  method?: CheckpointMethod;
  /** Tokens the summarisation calls used (they are not model turns, so they carry no `tokenUsage`). */
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
};

/** A checkpoint as the context uses it: its payload and the seq of the event that holds it. */
export type CheckpointRecord = CheckpointPayload & { eventSeq: number };

const Placeholder = z.object({
  callId: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  preview: z.string(),
});

const Payload = z.object({
  id: z.string().min(1),
  throughSeq: z.number().int().nonnegative(),
  sourceDigest: z.string().regex(/^[0-9a-f]{64}$/),
  prevId: z.string().nullable(),
  summary: z.string().min(1),
  placeholders: z.array(Placeholder).optional(),
  method: z.enum(["model", "extract", "carried"]).optional(),
  usage: z
    .object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number().optional() })
    .optional(),
});

export type SummaryCheck = { ok: true; summary: string } | { ok: false; reason: string };

const headingOf = (title: string) =>
  new RegExp(`^#{1,6}[ \\t]*${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \\t]*:?[ \\t\\r]*$`, "im");

/**
 * Splits a summary into its sections: each starts at its heading line and runs to the next of
 * the five headings. Text before the first heading is not a section.
 */
export function parseSections(text: string): Map<string, string> {
  const found: { title: string; start: number; bodyStart: number }[] = [];
  for (const title of CHECKPOINT_SECTIONS) {
    const m = headingOf(title).exec(text);
    if (m) found.push({ title, start: m.index, bodyStart: m.index + m[0].length });
  }
  found.sort((a, b) => a.start - b.start);
  const out = new Map<string, string>();
  found.forEach((f, i) => {
    out.set(f.title, text.slice(f.bodyStart, found[i + 1]?.start ?? text.length).trim());
  });
  return out;
}

/**
 * A summary is usable as a checkpoint when all five sections are present in order, none is
 * empty and the whole fits in `maxChars` (so it cannot crowd out the working set).
 */
export function validateSummary(text: string, maxChars: number): SummaryCheck {
  const summary = text.trim();
  if (summary.length === 0) return { ok: false, reason: "the summary is empty" };
  if (summary.length > maxChars)
    return { ok: false, reason: `the summary has ${summary.length} characters; at most ${maxChars} are allowed` };
  let last = -1;
  for (const title of CHECKPOINT_SECTIONS) {
    const m = headingOf(title).exec(summary);
    if (!m) return { ok: false, reason: `the section "## ${title}" is missing` };
    if (m.index < last) return { ok: false, reason: `the section "## ${title}" is out of order` };
    last = m.index;
  }
  for (const [title, body] of parseSections(summary))
    if (body.length === 0) return { ok: false, reason: `the section "## ${title}" is empty` };
  return { ok: true, summary };
}

/** The hidden event that records a checkpoint before the call that uses it (docs/API.md §3). */
export function checkpointDraft(payload: CheckpointPayload, base: { turnId: string; runId: string }): EventDraft {
  return { author: "runtime", modelVisibility: "hidden", ...base, actions: { stateDelta: { checkpoint: payload } } };
}

/** Reads a checkpoint payload back from an event body (JSON from SQLite: checked, not trusted). */
export function parseCheckpointPayload(value: unknown): CheckpointPayload | null {
  const parsed = Payload.safeParse(value);
  if (!parsed.success) return null;
  const { placeholders, method, usage, ...rest } = parsed.data;
  return {
    ...rest,
    placeholders: placeholders ?? [],
    ...(method ? { method } : {}),
    ...(usage ? { usage } : {}),
  };
}

type CheckpointRow = {
  id: string;
  through_seq: number;
  source_digest: string;
  prev_id: string | null;
  summary: string;
  event_seq: number;
};

export type LoadedCheckpoint = {
  checkpoint: CheckpointRecord | null;
  /** Checkpoint events skipped because they disagree with the log (seq and why). */
  discarded: { eventSeq: number; reason: string }[];
  /** True when the `checkpoints` row was missing or disagreed with its event and was rewritten. */
  cacheRepaired: boolean;
};

/** Checkpoint events looked at before giving up and projecting from the start of the log. */
const MAX_CHECKPOINT_SCAN = 32;

/**
 * The latest checkpoint that agrees with the log. The event is the truth: its `sourceDigest`
 * must equal `digest(throughSeq)`, else it is skipped for the one before it. The
 * `checkpoints` table is a cache of the events: a row that is missing or disagrees with its
 * event is discarded and rebuilt from the event (when `repair`; `GET /context` reads only).
 * Cost: one indexed lookup per checkpoint event looked at, independent of the log's length.
 */
export function loadLatestCheckpoint(
  deps: { store: EventStore; sql: SqlLike },
  options: { repair: boolean },
): LoadedCheckpoint {
  // The newest checkpoint event, from the kind index alone: when it is the one this store
  // validated last, that answer stands (the log is append-only; its cache row was checked or repaired then).
  const newest =
    deps.sql
      .exec<{ seq: number }>(
        "SELECT seq FROM events WHERE kind = 'state:checkpoint' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') ORDER BY seq DESC LIMIT 1",
      )
      .toArray()[0]?.seq ?? null;
  const known = validated.get(deps.store);
  if (known && known.eventSeq === newest) {
    const checkpoint = known.checkpoint;
    // The cache row is checked still: it is not the log, and may have been lost or changed since.
    const cacheRepaired = options.repair && !cacheAgrees(deps.sql, checkpoint);
    if (cacheRepaired) writeCheckpointRow(deps.sql, checkpoint);
    return { checkpoint, discarded: [], cacheRepaired };
  }
  const loaded = scanCheckpoints(deps, options);
  if (newest !== null && loaded.checkpoint?.eventSeq === newest)
    validated.set(deps.store, { eventSeq: newest, checkpoint: loaded.checkpoint });
  return loaded;
}

/** The checkpoint each store last found valid at the newest checkpoint event (a cache: lost with the store). */
const validated = new WeakMap<EventStore, { eventSeq: number; checkpoint: CheckpointRecord }>();

function scanCheckpoints(deps: { store: EventStore; sql: SqlLike }, options: { repair: boolean }): LoadedCheckpoint {
  const discarded: LoadedCheckpoint["discarded"] = [];
  let before = Number.MAX_SAFE_INTEGER;
  for (let i = 0; i < MAX_CHECKPOINT_SCAN; i++) {
    const row = deps.sql
      .exec<{ seq: number; body: string }>(
        "SELECT seq, body FROM events WHERE kind = 'state:checkpoint' AND author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse') AND seq < ? ORDER BY seq DESC LIMIT 1",
        before,
      )
      .toArray()[0];
    if (!row) break;
    before = row.seq;
    const payload = readPayload(deps.store, row.body);
    const reason = !payload
      ? "malformed checkpoint"
      : payload.throughSeq >= row.seq
        ? `throughSeq ${payload.throughSeq} is not before the event`
        : deps.store.digestAt(payload.throughSeq) !== payload.sourceDigest
          ? `sourceDigest disagrees with digest(${payload.throughSeq})`
          : null;
    if (reason || !payload) {
      discarded.push({ eventSeq: row.seq, reason: reason ?? "malformed checkpoint" });
      if (options.repair) deps.sql.exec("DELETE FROM checkpoints WHERE event_seq = ?", row.seq);
      continue;
    }
    const checkpoint: CheckpointRecord = { ...payload, eventSeq: row.seq };
    let cacheRepaired = false;
    if (options.repair && !cacheAgrees(deps.sql, checkpoint)) {
      writeCheckpointRow(deps.sql, checkpoint);
      cacheRepaired = true;
    }
    return { checkpoint, discarded, cacheRepaired };
  }
  return { checkpoint: null, discarded, cacheRepaired: false };
}

function readPayload(store: EventStore, body: string): CheckpointPayload | null {
  let value: unknown;
  try {
    value = (JSON.parse(body) as { actions?: { stateDelta?: { checkpoint?: unknown } } }).actions?.stateDelta
      ?.checkpoint;
  } catch {
    return null;
  }
  // A checkpoint is bounded far below 512 KiB, but an externalized one is still read back whole.
  if (isBlobRef(value)) {
    const text = store.blobs.readText(value.$blob.sha256);
    try {
      value = text === null ? null : JSON.parse(text);
    } catch {
      return null;
    }
  }
  return parseCheckpointPayload(value);
}

function cacheAgrees(sql: SqlLike, c: CheckpointRecord): boolean {
  const row = sql.exec<CheckpointRow>("SELECT * FROM checkpoints WHERE id = ?", c.id).toArray()[0];
  return (
    !!row &&
    row.through_seq === c.throughSeq &&
    row.source_digest === c.sourceDigest &&
    (row.prev_id ?? null) === c.prevId &&
    row.summary === c.summary &&
    row.event_seq === c.eventSeq
  );
}

/** Writes (or rewrites) the cache row of a committed checkpoint event. */
export function writeCheckpointRow(sql: SqlLike, c: CheckpointRecord): void {
  sql.exec("DELETE FROM checkpoints WHERE id = ? OR event_seq = ?", c.id, c.eventSeq);
  sql.exec(
    "INSERT INTO checkpoints (id, through_seq, source_digest, prev_id, summary, event_seq) VALUES (?, ?, ?, ?, ?, ?)",
    c.id,
    c.throughSeq,
    c.sourceDigest,
    c.prevId,
    c.summary,
    c.eventSeq,
  );
}
