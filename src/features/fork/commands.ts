/**
 * Fork (docs/API.md §6, §7.30). The parent reads its state as of `throughSeq` (`readForkSource`);
 * the new session writes it as its first events (`createFork`): seq 1 the session with
 * `forkedFrom`, seq 2 the hidden `forkPrefix` blob, then each call left unanswered at
 * `throughSeq` copied and answered, and the copied open turn closed `stopped`.
 */
import { parseCheckpointPayload } from "../../context/checkpoint";
import { placeholderMap } from "../../context/next-context";
import { type Event, type EventDraft, isBlobRef } from "../../log";
import {
  buildModelMessages,
  projectRunState,
  reduceSummary,
  type Session,
  type SessionCreated,
  type SessionSummary,
} from "../../projections";
import type { RuntimeCtx } from "../../runtime/deps";
import { type Base, closeDraft, rejectedDraft, responseDraft } from "../../runtime/drafts";
import { ApiError } from "../../runtime/errors";
import { applyFileChanges, normalizeWorkspacePath } from "../../tools";
import { type ForkPrefix, foldWorkspace, resolveWith } from "./facts";

export type ForkedFrom = { sessionId: string; throughSeq: number; digest: string };

/** A call the parent had not answered at `throughSeq`: its functionCall event and its dispatch, if any. */
export type ForkCall = { call: EventDraft; dispatch: NonNullable<EventDraft["actions"]>["toolDispatch"] | null };

/** Everything a fork is made of, read from the parent. */
export type ForkSource = {
  forkedFrom: ForkedFrom;
  options: SessionSummary["options"];
  model: SessionSummary["model"];
  prefix: ForkPrefix;
  calls: ForkCall[];
  /** The turn open at `throughSeq`, if any (the fork closes it `stopped`). */
  openTurn: Base | null;
  /**
   * Archived results the prefix shows as placeholders, by reference: the fork copies their bytes
   * from the parent page by page (`./archive.ts`), so its `archive://` refs resolve and
   * no reply carries them all.
   */
  archive: ArchiveRef[];
};

/** A blob of the parent, named by its digest. */
export type ArchiveRef = { sha256: string; bytes: number; mediaType: string };

/** The sha256 of every placeholder among a prefix's tool results (docs/API.md §5 offload). */
export function placeholderRefs(messages: ForkPrefix["messages"]): string[] {
  const refs = new Set<string>();
  for (const m of messages)
    if (m.role === "tool")
      for (const part of m.content) {
        const out = part.output as { offloaded?: unknown; sha256?: unknown } | null;
        if (out && typeof out === "object" && out.offloaded === true && typeof out.sha256 === "string")
          refs.add(out.sha256);
      }
  return [...refs];
}

const PAGE = 1000;

export const FORK_INTERRUPTED = {
  interrupted: true,
  message:
    "This call was running in the parent session when this session was forked from it. It did not run here; its side effect may or may not have happened in the parent. Inspect before retrying.",
};
export const FORK_REJECTED = { reason: "forked", message: "This call had not started when this session was forked." };

/** The parent's state as of `throughSeq` (1 ≤ throughSeq ≤ highWater, else 400). Reads the log in pages. */
export function readForkSource(rt: RuntimeCtx, throughSeq: number): ForkSource {
  const head = rt.require().highWater;
  if (!Number.isInteger(throughSeq) || throughSeq < 1 || throughSeq > head)
    throw new ApiError("bad_request", `throughSeq: must be between 1 and highWater (${head})`);
  const store = rt.deps.store;
  const resolve = resolveWith((sha) => store.blobs.readText(sha));
  const readPrefix = (v: unknown) => (isBlobRef(v) ? (resolve(v) as ForkPrefix) : null);
  const normalize = (p: string) => {
    const r = normalizeWorkspacePath(p);
    return r.ok ? r.path : null;
  };

  let summary: SessionSummary | null = null;
  let checkpointEvent: unknown = null;
  const workspace = new Map<string, string>();
  const fileCalls = new Map<string, { name: string; args: unknown }>();
  let inherited: ForkPrefix | null = null;
  for (let after = 0; after < throughSeq; ) {
    const page = store.readAfter(after, Math.min(PAGE, throughSeq - after));
    if (page.length === 0) break;
    for (const e of page) {
      summary = reduceSummary(summary, e);
      const d = e.actions?.stateDelta;
      if (d?.checkpoint) checkpointEvent = d.checkpoint;
      if (d?.forkPrefix) inherited = readPrefix(d.forkPrefix);
    }
    foldWorkspace(workspace, fileCalls, page, { normalize, resolve, prefix: readPrefix });
    after = page.at(-1)!.seq;
  }
  if (!summary) throw new ApiError("not_found", "session not found");

  const cp = checkpointEvent ? parseCheckpointPayload(resolve(checkpointEvent)) : null;
  const turn = summary.openTurn;
  const suffix = turn ? store.readFrom(turn.lastModelRequestSeq ?? turn.startSeq, throughSeq) : [];
  const run = projectRunState(suffix);
  const open = run.calls.filter((c) => !c.answered);
  const openIds = new Set(open.map((c) => c.callId));

  // The model view at throughSeq, without the calls the fork copies (they follow the prefix there).
  // A parent that is itself a fork starts from its own prefix until its first checkpoint.
  const events = rt.deps.view
    .contextEventsAfter(cp?.throughSeq ?? 0, throughSeq)
    .filter((e) => !(e.content?.type === "functionCall" && openIds.has(e.content.callId)))
    .map((e) => resolveEvent(e, resolve));
  const built = buildModelMessages({
    system: "",
    summary: cp?.summary ?? null,
    events,
    placeholders: placeholderMap(cp),
  }).slice(1);
  const messages = !cp && inherited ? [...inherited.messages, ...built] : built;

  const calls: ForkCall[] = open.map((c) => {
    const e = store.get(c.seq)!;
    const content = e.content as Extract<Event["content"], { type: "functionCall" }>;
    const call: EventDraft = {
      author: e.author,
      modelVisibility: e.modelVisibility,
      ...(e.turnId ? { turnId: e.turnId } : {}),
      ...(e.runId ? { runId: e.runId } : {}),
      ...(e.invocationId ? { invocationId: e.invocationId } : {}),
      content: { ...content, args: resolve(content.args) },
    };
    const dispatch = c.dispatch
      ? { callId: c.callId, tool: c.name, effect: c.dispatch.effect, idempotencyKey: c.dispatch.idempotencyKey }
      : null;
    return { call, dispatch };
  });

  const archive = placeholderRefs(messages).flatMap((sha256): ArchiveRef[] => {
    const meta = store.blobs.meta(sha256);
    return meta ? [{ sha256, bytes: meta.bytes, mediaType: meta.mediaType }] : [];
  });

  return {
    archive,
    forkedFrom: { sessionId: rt.deps.sessionId, throughSeq, digest: store.digestAt(throughSeq)! },
    options: summary.options,
    model: summary.model,
    prefix: {
      checkpoint: cp
        ? { id: cp.id, throughSeq: cp.throughSeq, sourceDigest: cp.sourceDigest, summary: cp.summary }
        : null,
      messages,
      workspace: Object.fromEntries([...workspace].sort(([a], [b]) => (a < b ? -1 : 1))),
    },
    calls,
    openTurn: turn ? { turnId: turn.turnId, runId: turn.runId } : null,
  };
}

/** A model-visible event with its `$blob` payloads read back, as the fork's context needs them inline. */
function resolveEvent(e: Event, resolve: (v: unknown) => unknown): Event {
  const c = e.content;
  if (c?.type === "functionCall" && isBlobRef(c.args)) return { ...e, content: { ...c, args: resolve(c.args) } };
  if (c?.type === "text" && isBlobRef(c.text)) return { ...e, content: { ...c, text: resolve(c.text) as string } };
  return e;
}

/**
 * The fork's first events, in one block; its workspace and the archived results (`archive`, the
 * bytes of `source.archive`, copied from the parent) are written in the same transaction.
 */
export function createFork(
  rt: RuntimeCtx,
  input: {
    id: string;
    source: ForkSource;
    owner: string;
    archive: { text: string; mediaType: string }[];
    directoryId?: string;
  },
): Session {
  if (rt.summary) throw new ApiError("conflict", "session already exists");
  const { source } = input;
  const created: SessionCreated & { forkedFrom: ForkedFrom } = {
    id: input.id,
    parentId: null,
    options: source.options,
    model: source.model,
    forkedFrom: source.forkedFrom,
    owner: input.owner,
    ...(input.directoryId ? { directoryId: input.directoryId } : {}),
  };
  // Archive first (each blob read back and checked), placeholders second.
  for (const a of input.archive) rt.deps.store.blobs.put(a.text, a.mediaType);
  const blob = rt.deps.store.blobs.put(JSON.stringify(source.prefix), "application/json");
  const drafts: EventDraft[] = [
    { author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { session: created } } },
    {
      author: "runtime",
      modelVisibility: "hidden",
      actions: {
        stateDelta: { forkPrefix: { $blob: { sha256: blob.sha256, bytes: blob.bytes, mediaType: blob.mediaType } } },
      },
    },
  ];
  const base: Base = source.openTurn ?? { turnId: "", runId: "" };
  for (const { call, dispatch } of source.calls) {
    drafts.push(call);
    const c = call.content as Extract<Event["content"], { type: "functionCall" }>;
    const ids = { ...base, ...(call.invocationId ? { invocationId: call.invocationId } : {}) };
    if (dispatch) {
      drafts.push({ author: "runtime", modelVisibility: "hidden", ...ids, actions: { toolDispatch: dispatch } });
      drafts.push(responseDraft(c, ids, "interrupted", FORK_INTERRUPTED));
    } else drafts.push(rejectedDraft(c, ids, FORK_REJECTED));
  }
  if (source.openTurn) drafts.push(closeDraft(source.openTurn, "stopped"));
  const files = Object.entries(source.prefix.workspace).map(([path, content]) => ({ path, content }));
  rt.commit(drafts, (events) => {
    const at = events[1]!;
    if (files.length > 0) applyFileChanges(rt.deps.sql, files, at.seq, at.at);
  });
  return rt.session();
}
