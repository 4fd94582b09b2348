import { canonical } from "../contract/canonical";
import { type Event, isBlobRef, type TokenUsage } from "../contract/event";
import type {
  CloseReason,
  PendingApproval,
  RecoveryNotice,
  Session,
  SessionOptions,
  SessionStatus,
} from "../contract/session";
import { sha256Hex } from "../log/hash";
import type { ModelConfig } from "../model/types";
import {
  type ChildrenState,
  childWait,
  initialChildren,
  parseSpawnedBy,
  reduceChildren,
  type SpawnedBy,
} from "./children";
import { type RemoteState, reduceRemote } from "./remote";
import type { TurnBudget } from "./waits";
import { DEFAULT_MAX_MODEL_CALLS, foldPendingInputs, type PendingInput, reduceTurnWaits, sessionWait } from "./waits";

export type * from "../contract/session";

export type OpenTurn = TurnBudget & {
  turnId: string;
  startSeq: number;
  runId: string;
  /** The model recorded when the turn opened: a PATCH during the turn does not change it. */
  model: ModelConfig;
  lastModelRequestSeq: number | null;
  /** `throughSeq` of that request: the log prefix it was built from. */
  lastModelRequestThrough: number | null;
  /** Consecutive answers that stopped at `length` without tool calls (docs/API.md §7.10). */
  lengthStreak?: number;
};

/**
 * Everything a request or a step needs to know about a session without reading the log:
 * a fold over the events (`reduceSummary`), stored in `meta` as a cache and rebuildable.
 */
export type SessionSummary = {
  id: string;
  title: string | null;
  parentId: string | null;
  createdAt: string;
  updatedAt: string;
  options: SessionOptions;
  model: ModelConfig;
  openTurn: OpenTurn | null;
  lastClose: CloseReason | null;
  pendingApprovals: PendingApproval[];
  /** Open questions of tools' servers (docs/API.md#questions-from-mcp-servers); absent in older caches: none. */
  pendingInputs?: readonly PendingInput[];
  recoveryNotice: RecoveryNotice | null;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  /** The last model request with a reported usage: the budget estimate starts from it. */
  lastUsage: { requestSeq: number; throughSeq: number; inputTokens: number } | null;
  highWater: number;
  headDigest: string;
  /** docs/API.md §7.26: `sha256_hex("owner:" + id + ":" + principal)` from seq 1; null in logs from before it. */
  owner: string | null;
  /** A fork's parent and the seq it was forked at (docs/API.md §7.30), from seq 1. */
  forkedFrom?: { sessionId: string; throughSeq: number; digest: string };
  /** A fork's `stateDelta.forkPrefix` blob (docs/API.md §7.30): the parent's view its context starts from. */
  forkPrefix?: { sha256: string; bytes: number; mediaType: string };
  /** Sub-sessions (docs/API.md §6 spawn_session): waits for children, the outbox, pending stops. */
  children?: ChildrenState;
  /** Remote calls (docs/design.md#remote-calls): the tasks waited for and those a close answered first. */
  remote?: RemoteState;
  /** The owner's directory object id, where this session registers the children it spawns. */
  directoryId?: string | null;
  /** The last recorded `stateDelta.toolset` (docs/API.md#mcp-servers): an open turn keeps it until it closes. */
  toolset?: RecordedToolset;
  /** Each feature's own slice, by feature name, folded by its `fold` (docs/design.md#plugs). */
  features?: Record<string, unknown>;
};

/** A feature's fold of its summary slice: the previous slice (undefined at first) and one committed event. */
export type SliceFold = { readonly name: string; readonly fold?: (slice: unknown, event: Event) => unknown };

/** What the summary keeps of a toolset: its digest, the servers left out, and the blob of its MCP tools. */
export type RecordedToolset = {
  digest: string;
  unavailable: string[];
  mcp: { sha256: string; bytes: number; mediaType: string } | null;
};

export type SessionCreated = {
  id: string;
  parentId: string | null;
  options: SessionOptions;
  model: ModelConfig;
  /** The owner hash recorded in seq 1 (docs/API.md §7.26). */
  owner?: string;
  spawnedBy?: SpawnedBy;
  directoryId?: string;
};

/**
 * Folds one committed event into the summary, then into each feature's slice (`folds`, in order;
 * a slice that a fold returns unchanged keeps the summary's `features` object). Pure.
 */
export function reduceSummaryWith(
  s: SessionSummary | null,
  e: Event,
  folds: readonly SliceFold[],
): SessionSummary | null {
  const next = reduceSummary(s, e);
  if (!next) return next;
  for (const f of folds) {
    if (!f.fold) continue;
    const before = next.features?.[f.name];
    const after = f.fold(before, e);
    if (after !== before) next.features = { ...next.features, [f.name]: after };
  }
  return next;
}

/** Folds one committed event into the core of the summary (no feature slices). Pure. */
export function reduceSummary(s: SessionSummary | null, e: Event): SessionSummary | null {
  const delta = e.actions?.stateDelta;
  if (!s) {
    const created = delta?.session as (SessionCreated & { forkedFrom?: SessionSummary["forkedFrom"] }) | undefined;
    if (!created) return null;
    return {
      ...(created.forkedFrom ? { forkedFrom: created.forkedFrom } : {}),
      id: e.sessionId,
      title: created.options.title ?? null,
      parentId: created.parentId,
      createdAt: e.at,
      updatedAt: e.at,
      options: created.options,
      model: created.model,
      openTurn: null,
      lastClose: null,
      pendingApprovals: [],
      recoveryNotice: null,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      lastUsage: null,
      highWater: e.seq,
      headDigest: e.digest,
      owner: created.owner ?? null,
      children: initialChildren(parseSpawnedBy(created.spawnedBy)),
      directoryId: created.directoryId ?? null,
    };
  }
  const next: SessionSummary = { ...s, highWater: e.seq, headDigest: e.digest, updatedAt: e.at };
  const a = e.actions ?? {};
  if (delta) {
    if (typeof delta.title === "string" || delta.title === null) next.title = delta.title as string | null;
    if (delta.model) next.model = delta.model as ModelConfig;
    if (delta.recoveryNotice)
      next.recoveryNotice = { reissued: [], ...(delta.recoveryNotice as Omit<RecoveryNotice, "reissued">) };
    if (delta.recoveryNoticeDismissed) next.recoveryNotice = null;
    if (typeof delta.maxModelCallsPerTurn === "number")
      next.options = { ...next.options, maxModelCallsPerTurn: delta.maxModelCallsPerTurn };
    if (isBlobRef(delta.forkPrefix)) next.forkPrefix = delta.forkPrefix.$blob;
    const toolset = delta.toolset as { digest?: unknown; unavailable?: unknown; mcp?: unknown } | undefined;
    if (toolset && typeof toolset.digest === "string")
      next.toolset = {
        digest: toolset.digest,
        unavailable: Array.isArray(toolset.unavailable) ? toolset.unavailable.map(String) : [],
        mcp: isBlobRef(toolset.mcp) ? toolset.mcp.$blob : null,
      };
    // docs/API.md §7.29: a compaction's model calls count in the session's usage (not in lastUsage:
    // they were not the turn's requests).
    const compacted = (delta.checkpoint as { usage?: Partial<TokenUsage> } | undefined)?.usage;
    if (compacted && typeof compacted.inputTokens === "number" && typeof compacted.outputTokens === "number")
      next.usage = addUsage(next.usage, compacted as TokenUsage);
  }
  if (e.author === "user" && e.content?.type === "text" && !next.openTurn && e.turnId) {
    next.openTurn = {
      turnId: e.turnId,
      startSeq: e.seq,
      runId: e.runId ?? "",
      model: next.model,
      lastModelRequestSeq: null,
      lastModelRequestThrough: null,
    };
    next.recoveryNotice = null;
  }
  if (next.openTurn && e.turnId === next.openTurn.turnId) {
    if (e.runId && e.runId !== next.openTurn.runId) next.openTurn = { ...next.openTurn, runId: e.runId };
    if (a.modelRequest && a.modelRequest.purpose !== "compaction")
      next.openTurn = {
        ...next.openTurn,
        lastModelRequestSeq: e.seq,
        lastModelRequestThrough: a.modelRequest.throughSeq,
      };
  }
  if (next.openTurn) next.openTurn = reduceTurnWaits(next.openTurn, e, next.options.maxModelCallsPerTurn);
  if (a.permissionRequest) next.pendingApprovals = [...next.pendingApprovals, a.permissionRequest];
  if (a.permissionDecision) {
    const id = a.permissionDecision.requestId;
    next.pendingApprovals = next.pendingApprovals.filter((p) => p.requestId !== id);
  }
  const inputs = foldPendingInputs(next.pendingInputs ?? [], e);
  if (inputs !== (next.pendingInputs ?? []) || next.pendingInputs) next.pendingInputs = inputs;
  if (a.tokenUsage) next.usage = addUsage(next.usage, a.tokenUsage);
  if (next.openTurn && e.author === "model" && typeof delta?.finishReason === "string") {
    const cut = delta.finishReason === "length" && e.content?.type !== "functionCall";
    next.openTurn = { ...next.openTurn, lengthStreak: cut ? (next.openTurn.lengthStreak ?? 0) + 1 : 0 };
  }
  if (a.tokenUsage && next.openTurn?.lastModelRequestSeq) {
    next.lastUsage = {
      requestSeq: next.openTurn.lastModelRequestSeq,
      throughSeq: next.openTurn.lastModelRequestThrough ?? next.openTurn.lastModelRequestSeq - 1,
      inputTokens: a.tokenUsage.inputTokens,
    };
  }
  if (a.turnClose) {
    next.openTurn = null;
    next.lastClose = a.turnClose.reason;
    next.pendingApprovals = [];
  }
  next.children = reduceChildren(next.children, e);
  const remote = reduceRemote(next.remote, e);
  if (remote !== next.remote) next.remote = remote;
  return next;
}

function addUsage(u: SessionSummary["usage"], t: TokenUsage): SessionSummary["usage"] {
  return {
    inputTokens: u.inputTokens + t.inputTokens,
    outputTokens: u.outputTokens + t.outputTokens,
    cachedInputTokens: u.cachedInputTokens + (t.cachedInputTokens ?? 0),
  };
}

/**
 * docs/API.md §2 Status, derived from the summary; `ownsRun` is false only between the object's
 * start and its first slice's decision (`recovering` is in memory only, docs/API.md §7.12).
 */
export function deriveStatus(s: SessionSummary, ownsRun: (runId: string) => boolean): SessionStatus {
  if (!s.openTurn) return s.lastClose === "failed" ? "failed" : "idle";
  if (s.pendingApprovals.length > 0) return "waiting_approval";
  if ((s.pendingInputs?.length ?? 0) > 0) return "waiting_input";
  if (s.openTurn.wait) return "waiting";
  // Taking over a run that only waits for a child is not a recovery (docs/API.md §3).
  if (childWait(s.children)) return "waiting";
  if (!ownsRun(s.openTurn.runId)) return "recovering";
  return "running";
}

/** The public `Session` shape (docs/API.md §2). */
export function toSession(s: SessionSummary, ownsRun: (runId: string) => boolean): Session {
  return {
    id: s.id,
    title: s.title,
    parentId: s.parentId,
    status: deriveStatus(s, ownsRun),
    openTurn: s.openTurn !== null,
    highWater: s.highWater,
    headDigest: s.headDigest,
    model: s.model,
    pendingApprovals: s.pendingApprovals.map(withArgsDigest),
    pendingInputs: [...(s.pendingInputs ?? [])],
    recoveryNotice: s.recoveryNotice,
    usage: s.usage,
    maxModelCallsPerTurn: s.options.maxModelCallsPerTurn ?? DEFAULT_MAX_MODEL_CALLS,
    wait: sessionWait(s),
    // docs/API.md §2, §7.24: where the session lives, as recorded in seq 1.
    placement: { locationHint: s.options.locationHint ?? null, jurisdiction: s.options.jurisdiction ?? null },
    /** Fork lineage, for the console: the parent and the seq this session was forked at, else null. */
    forkedFrom: s.forkedFrom ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...publicFieldsOf(s.features),
  };
}

/**
 * What features add to the public `Session` (docs/design.md#plugs): a slice whose fold returned
 * `{ session: { … } }` contributes those fields (a channel-born session's `channel`, say).
 */
function publicFieldsOf(features: Record<string, unknown> | undefined): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  for (const slice of Object.values(features ?? {})) {
    const fields = (slice as { session?: unknown } | null)?.session;
    if (fields && typeof fields === "object") out = { ...out, ...fields };
  }
  return out;
}

/** A pending approval with the digest its decision must echo (docs/API.md §7.17). */
export function withArgsDigest(p: PendingApproval): PendingApproval & { argsDigest: string } {
  // A request recorded before digests were: its args are as the request holds them.
  return { ...p, argsDigest: p.argsDigest ?? sha256Hex(canonical(p.args ?? null)) };
}
