import type { EventDraft } from "../../src/log";
import { filler, hex64, MODEL } from "./rows";

export type TurnIds = { turnId: string; runId: string };

/** One closed turn of 8 events: user, request, call, dispatch, result, request, answer, close. */
export function closedTurn(seq: number, salt: number): EventDraft[] {
  const ids: TurnIds = { turnId: crypto.randomUUID(), runId: crypto.randomUUID() };
  const inv1 = crypto.randomUUID();
  const inv2 = crypto.randomUUID();
  const callId = `call_${salt}`;
  const request = (through: number, inv: string): EventDraft => ({
    author: "runtime",
    modelVisibility: "hidden",
    ...ids,
    invocationId: inv,
    actions: {
      modelRequest: {
        throughSeq: through,
        checkpointId: null,
        estimatedTokens: 1000 + salt,
        requestDigest: hex64(salt),
      },
    },
  });
  return [
    {
      author: "user",
      source: "http",
      modelVisibility: "visible",
      ...ids,
      content: { type: "text", text: filler(360, salt) },
    },
    request(seq, inv1),
    {
      author: "model",
      modelVisibility: "visible",
      ...ids,
      invocationId: inv1,
      content: { type: "functionCall", callId, name: "read_file", args: { path: `notes/n${salt % 50}.md` } },
      actions: { tokenUsage: { inputTokens: 2000, outputTokens: 40 } },
    },
    {
      author: "runtime",
      modelVisibility: "hidden",
      ...ids,
      invocationId: inv1,
      actions: { toolDispatch: { callId, tool: "read_file", effect: "read", idempotencyKey: `k:${callId}` } },
    },
    {
      author: "tool",
      modelVisibility: "visible",
      ...ids,
      invocationId: inv1,
      content: {
        type: "functionResponse",
        callId,
        name: "read_file",
        status: "ok",
        response: { path: `notes/n${salt % 50}.md`, content: filler(300, salt + 1) },
      },
    },
    request(seq + 4, inv2),
    {
      author: "model",
      modelVisibility: "visible",
      ...ids,
      invocationId: inv2,
      content: { type: "text", text: filler(360, salt + 2) },
      actions: { tokenUsage: { inputTokens: 2100, outputTokens: 90 }, endInvocation: true },
    },
    { author: "runtime", modelVisibility: "hidden", ...ids, actions: { turnClose: { reason: "completed" } } },
  ];
}

/** A turn left open by a crash: the model asked for a write and it was dispatched (T1), no outcome. */
export function openTurn(seq: number): EventDraft[] {
  const ids: TurnIds = { turnId: crypto.randomUUID(), runId: crypto.randomUUID() };
  const inv = crypto.randomUUID();
  const callId = "call_open";
  return [
    {
      author: "user",
      source: "http",
      modelVisibility: "visible",
      ...ids,
      content: { type: "text", text: "Write the report." },
    },
    {
      author: "runtime",
      modelVisibility: "hidden",
      ...ids,
      invocationId: inv,
      actions: {
        modelRequest: { throughSeq: seq, checkpointId: null, estimatedTokens: 1000, requestDigest: hex64(7) },
      },
    },
    {
      author: "model",
      modelVisibility: "visible",
      ...ids,
      invocationId: inv,
      content: { type: "functionCall", callId, name: "write_file", args: { path: "report.md", content: "draft" } },
      actions: { tokenUsage: { inputTokens: 2000, outputTokens: 40 } },
    },
    {
      author: "runtime",
      modelVisibility: "hidden",
      ...ids,
      invocationId: inv,
      actions: { toolDispatch: { callId, tool: "write_file", effect: "write", idempotencyKey: `k:${callId}` } },
    },
  ];
}

/** Events kept raw after the checkpoint: the recent working set the next request reads. */
export const CHECKPOINT_TAIL = 200;

/** Text over the offload threshold (32 KiB): what a tool result that gets archived looks like. */
export const OFFLOAD_TEXT_BYTES = 40_000;

/** How a filled session looks (issue 12: fixtures that look like long tasks). */
export type FillShape = {
  /** Events after the checkpoint, before the open turn (closed turns of 8 events). */
  tail: number;
  /** Of the closed turns after the checkpoint, how many have their tool result offloaded (archived). */
  offloads: number;
  /** The open turn at the end: none, the 4-event crash of `openTurn`, or a long one (`longOpenTurn`). */
  open: "none" | "small" | "long";
  /** The session's model context window (large, so no fill triggers a compaction in a step bench). */
  contextWindow: number;
};
export const DEFAULT_SHAPE: FillShape = {
  tail: CHECKPOINT_TAIL,
  offloads: 0,
  open: "small",
  contextWindow: MODEL.contextWindow,
};
/** Events and offloaded results of the long open turn (issue 12, item 5). */
export const LONG_OPEN_EVENTS = 2_000;
export const LONG_OPEN_OFFLOADS = 50;

/**
 * A long open turn left by a crash (issue 12, item 5): the message, then rounds of request,
 * call, T1, T2 (every tenth result offloaded), `LONG_OPEN_EVENTS` events in all, ending in a
 * dispatched write with no outcome. Yields commit groups of ≤ 1000 events.
 */
export function* longOpenTurn(
  seq: number,
  offload: (salt: number) => { text: string; offload: Record<string, unknown> },
): Generator<EventDraft[]> {
  const ids: TurnIds = { turnId: crypto.randomUUID(), runId: crypto.randomUUID() };
  let group: EventDraft[] = [
    {
      author: "user",
      source: "http",
      modelVisibility: "visible",
      ...ids,
      content: { type: "text", text: "Do it all." },
    },
  ];
  let at = seq + 1;
  const rounds = (LONG_OPEN_EVENTS - 1 - 3) / 4;
  const spacing = Math.floor(rounds / LONG_OPEN_OFFLOADS);
  for (let r = 0; r <= rounds; r++) {
    const inv = crypto.randomUUID();
    const callId = `call_long_${r}`;
    const last = r === rounds;
    const name = last ? "write_file" : "read_file";
    group.push(
      {
        author: "runtime",
        modelVisibility: "hidden",
        ...ids,
        invocationId: inv,
        actions: {
          modelRequest: { throughSeq: at - 1, checkpointId: null, estimatedTokens: 1000 + r, requestDigest: hex64(r) },
        },
      },
      {
        author: "model",
        modelVisibility: "visible",
        ...ids,
        invocationId: inv,
        content: {
          type: "functionCall",
          callId,
          name,
          args: last ? { path: "report.md", content: "draft" } : { path: `notes/n${r % 50}.md` },
        },
        actions: { tokenUsage: { inputTokens: 2000, outputTokens: 40 } },
      },
      {
        author: "runtime",
        modelVisibility: "hidden",
        ...ids,
        invocationId: inv,
        actions: {
          toolDispatch: { callId, tool: name, effect: last ? "write" : "read", idempotencyKey: `k:${callId}` },
        },
      },
    );
    at += 3;
    if (!last) {
      const off = r % spacing === 0 && r / spacing < LONG_OPEN_OFFLOADS ? offload(r) : null;
      group.push({
        author: "tool",
        modelVisibility: "visible",
        ...ids,
        invocationId: inv,
        content: {
          type: "functionResponse",
          callId,
          name,
          status: "ok",
          response: off ? off.text : { path: `notes/n${r % 50}.md`, content: filler(120, r) },
        },
        ...(off ? { actions: { stateDelta: { offload: off.offload } } } : {}),
      });
      at += 1;
    }
    if (group.length >= 1000) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}

// ------------------------------------------------------------------------------------------
// (b) agents' Sessions.appendMessage on a plain Durable Object (its documented install)

export type Message = { id: string; role: "user" | "assistant"; parts: { type: "text"; text: string }[] };
