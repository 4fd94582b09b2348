/**
 * The session's own commands as the object's RPC methods run them, once admitted: checks that
 * belong at the boundary (thresholds, 404 before 400), then the runtime's command.
 * docs/API.md#authentication-and-errors: an unknown id is 404 before a bad body is 400.
 */
import { computeThreshold, MIN_THRESHOLD } from "../context";
import { ApiError } from "../contract";
import { type ModelConfig, mergeModel } from "../model";
import type { InputAnswer, Session, SessionOptions } from "../projections";
import { approvalKnown, inputKnown } from "../runtime";
import type { ChildSpawn } from "../runtime/children";
import { type Admitted, ownerHash, rememberPrincipal } from "./admission";
import { lastModelCallSeq, lastUserMessageSeqs } from "./chat-reads";
import type { Parsed } from "./reads";

export type DecisionInput = { decision: "approve" | "reject"; reason?: string; argsDigest?: string };

/**
 * A session and its open turn, if any: where a chat stream starts. `answerSeq` is the turn's last
 * user message (its first, or one that joined it), whose answer is `a_<answerSeq>`; `callSeq` the
 * turn's last model call, which belongs to an earlier answer when it started before that message.
 */
export type ChatTurn = {
  session: Session;
  turn: { turnId: string; startSeq: number; answerSeq: number; callSeq: number } | null;
};

/** A model whose context window leaves too little room is refused (docs/API.md#sessions). */
export function checkThreshold(model: Pick<ModelConfig, "contextWindow" | "maxOutputTokens">): void {
  const threshold = computeThreshold(model.contextWindow, model.maxOutputTokens);
  if (threshold < MIN_THRESHOLD)
    throw new ApiError("bad_request", `model: threshold ${threshold} is below ${MIN_THRESHOLD} tokens`);
}

export function patchSession(
  { runtime }: Admitted,
  input: { title?: string | null; model?: Partial<ModelConfig>; maxModelCallsPerTurn?: number },
): Session {
  let model: ModelConfig | undefined;
  if (input.model) {
    model = mergeModel(runtime.session().model, input.model);
    checkThreshold(model);
  }
  return runtime.patch({ title: input.title, model, maxModelCallsPerTurn: input.maxModelCallsPerTurn });
}

/** The open turn a chat stream follows (docs/API.md#chat-ai-sdk-ui-message-stream), with the session. */
export function chatTurn({ runtime, sql }: Admitted): ChatTurn {
  const open = runtime.summary?.openTurn;
  if (!open) return { session: runtime.session(), turn: null };
  const answerSeq = Math.max(open.startSeq, lastUserMessageSeqs(sql, 1)[0] ?? 0);
  const callSeq = lastModelCallSeq(sql);
  return { session: runtime.session(), turn: { turnId: open.turnId, startSeq: open.startSeq, answerSeq, callSeq } };
}

/** An approval decision: the request id is looked up first, so an unknown one is 404 before a bad body is 400. */
export function decide({ runtime, sql }: Admitted, requestId: string, parsed: Parsed<DecisionInput>): Promise<Session> {
  if (!approvalKnown(sql, requestId)) throw new ApiError("not_found", "unknown approval");
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.decide({ requestId, ...parsed.value });
}

/**
 * An answer to a question of a tool's server: an id the session never asked is 404 before a bad
 * body is 400 (docs/API.md#questions-from-mcp-servers).
 */
export function answerInput(
  { runtime, sql }: Admitted,
  requestId: string,
  parsed: Parsed<InputAnswer>,
): Promise<Session> {
  if (!inputKnown(sql, requestId)) throw new ApiError("not_found", "unknown input request");
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.answerInput(requestId, parsed.value);
}

/** `POST /recovery-notice/dismiss`: 409 unless `atSeq` names the current notice. */
export function dismissRecoveryNotice({ runtime }: Admitted, parsed: Parsed<{ atSeq: number }>): Session {
  if (!parsed.ok) throw new ApiError("bad_request", parsed.message);
  return runtime.dismissRecoveryNotice(parsed.value);
}

export type CreateInput = {
  options: SessionOptions;
  model: ModelConfig;
  parentId: string | null;
  directoryId?: string;
};

/** Seq 1 with the owner, and the principal kept beside it (call inside the block that creates the tables). */
export function createOwned(
  { runtime, sql }: Pick<Admitted, "runtime" | "sql">,
  id: string,
  principal: string,
  input: CreateInput,
): Session {
  const { options, model, parentId, directoryId } = input;
  const owner = ownerHash(id, principal);
  const session = runtime.create({ id, parentId, options, model, owner, ...(directoryId ? { directoryId } : {}) });
  rememberPrincipal(sql, principal);
  return session;
}

/** A child keeps its parent's principal beside its log, so that the children it spawns are that principal's too. */
export function keepPrincipal<T>(opened: T, sql: SqlStorage, input: { principal: string }): T {
  rememberPrincipal(sql, input.principal);
  return opened;
}

/**
 * The parent's idempotent create of this child: session and goal once, keyed by the callId.
 * The child belongs to its parent's principal, recorded as its own owner hash.
 */
export function createChild(runtime: Admitted["runtime"], id: string, input: ChildSpawn & { principal: string }) {
  const { principal, ...spawn } = input;
  return runtime.createChild({ ...spawn, owner: ownerHash(id, principal) });
}

/** A feature's first write with the caller as owner; like any session it keeps its owner's principal, so it can spawn. */
export function createdBy(sql: SqlStorage, id: string, principal: string, write: (owner: string) => Session): Session {
  const session = write(ownerHash(id, principal));
  rememberPrincipal(sql, principal);
  return session;
}

/** `POST /stop`: the turn's closing block, the features' `afterTurn`, then the cancels the stop started. */
export async function stopSession({ runtime }: Admitted): Promise<Session> {
  const session = runtime.stop();
  await runtime.afterTurn();
  await runtime.settled();
  return session;
}
