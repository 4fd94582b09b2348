import type { Event, EventActions, EventContent, ToolEffect } from "../../../src/log";
import type { ModelConfig } from "../../../src/model/types";

/** Hand-written logs for projection tests: one builder per log, seq assigned in order. */

export const MODEL_A: ModelConfig = {
  provider: "openai",
  name: "model-a",
  contextWindow: 128_000,
  maxOutputTokens: 8192,
};
export const MODEL_B: ModelConfig = {
  provider: "anthropic",
  name: "model-b",
  contextWindow: 200_000,
  maxOutputTokens: 4096,
};

type Extra = Partial<Omit<Event, "seq" | "sessionId" | "digest" | "content">>;
type Status = "ok" | "error" | "interrupted" | "rejected";

export type LogBuilder = ReturnType<typeof newLog>;

/**
 * A log builder: `ev.user("hi")`, `ev.modelRequest()`, `ev.modelCall("c1", "read_file", {...})`,
 * `ev.dispatch("c1", "read")`, `ev.response("c1", "ok")`, `ev.turnClose("completed")`…
 * Every event is sessionId "s1", turnId "t1" (unless `turn()` switches it), runId "r1",
 * with a fake digest. Model events belong to the invocation of the last `modelRequest()`.
 */
export function newLog(opts: { sessionId?: string; turnId?: string; runId?: string } = {}) {
  const events: Event[] = [];
  const sessionId = opts.sessionId ?? "s1";
  let turnId = opts.turnId ?? "t1";
  let runId = opts.runId ?? "r1";
  let invocations = 0;
  let invocationId: string | undefined;
  const toolOf = new Map<string, string>();

  const push = (
    author: Event["author"],
    body: { content?: EventContent; actions?: EventActions },
    extra: Extra = {},
  ) => {
    const seq = events.length + 1;
    const e: Event = {
      seq,
      sessionId,
      turnId,
      runId,
      author,
      at: new Date(Date.UTC(2025, 0, 1, 0, 0, seq)).toISOString(),
      modelVisibility: "visible",
      ...extra,
      ...body,
      digest: `fake-digest-${seq}`,
    };
    if (e.turnId === undefined) delete e.turnId;
    if (e.runId === undefined) delete e.runId;
    if (e.invocationId === undefined) delete e.invocationId;
    events.push(e);
    return e;
  };

  const ev = {
    events,
    /** Later events carry this turn id (and optionally run id). */
    turn(id: string, run?: string) {
      turnId = id;
      if (run) runId = run;
    },
    run(id: string) {
      runId = id;
    },
    created(
      session: {
        options?: Record<string, unknown>;
        model?: ModelConfig;
        parentId?: string | null;
        owner?: string;
      } = {},
    ) {
      return push(
        "runtime",
        {
          actions: {
            stateDelta: {
              session: {
                id: sessionId,
                parentId: session.parentId ?? null,
                options: session.options ?? {},
                model: session.model ?? MODEL_A,
                ...(session.owner ? { owner: session.owner } : {}),
              },
            },
          },
        },
        { modelVisibility: "hidden", turnId: undefined, runId: undefined },
      );
    },
    user(text: string, extra: Extra = {}) {
      return push("user", { content: { type: "text", text } }, { source: "http", ...extra });
    },
    /** A hidden PATCH / runtime state change. */
    stateDelta(delta: Record<string, unknown>, author: Event["author"] = "user") {
      return push(author, { actions: { stateDelta: delta } }, { modelVisibility: "hidden" });
    },
    modelRequest(throughSeq?: number) {
      invocations += 1;
      invocationId = `inv${invocations}`;
      return push(
        "runtime",
        {
          actions: {
            modelRequest: {
              throughSeq: throughSeq ?? events.length,
              checkpointId: null,
              estimatedTokens: 100,
              requestDigest: `req-${invocations}`,
            },
          },
        },
        { modelVisibility: "hidden", invocationId },
      );
    },
    /** A compaction's own request (docs/API.md §7.29), under `id`; the turn's invocation is unchanged. */
    compactionRequest(id: string, throughSeq?: number) {
      return push(
        "runtime",
        {
          actions: {
            modelRequest: {
              throughSeq: throughSeq ?? events.length,
              checkpointId: null,
              estimatedTokens: 100,
              requestDigest: `req-${id}`,
              purpose: "compaction",
            },
          },
        },
        { modelVisibility: "hidden", invocationId: id },
      );
    },
    modelText(text: string, actions?: EventActions) {
      return push("model", { content: { type: "text", text }, ...(actions ? { actions } : {}) }, { invocationId });
    },
    modelThinking(text: string, signature?: string) {
      return push(
        "model",
        { content: { type: "thinking", text, ...(signature !== undefined ? { signature } : {}) } },
        { invocationId },
      );
    },
    modelCall(callId: string, name: string, args: unknown = {}, actions?: EventActions) {
      toolOf.set(callId, name);
      return push(
        "model",
        { content: { type: "functionCall", callId, name, args }, ...(actions ? { actions } : {}) },
        { invocationId },
      );
    },
    dispatch(callId: string, effect: ToolEffect) {
      const tool = toolOf.get(callId) ?? "unknown_tool";
      return push(
        "runtime",
        { actions: { toolDispatch: { callId, tool, effect, idempotencyKey: `${sessionId}:${callId}` } } },
        { modelVisibility: "hidden", invocationId },
      );
    },
    response(
      callId: string,
      status: Status,
      response: unknown = { result: `${callId} ${status}` },
      actions?: EventActions,
    ) {
      const name = toolOf.get(callId) ?? "unknown_tool";
      return push(
        "tool",
        { content: { type: "functionResponse", callId, name, status, response }, ...(actions ? { actions } : {}) },
        { invocationId },
      );
    },
    permissionRequest(callId: string, requestId = `apr_${callId}`, args: unknown = {}) {
      const tool = toolOf.get(callId) ?? "unknown_tool";
      return push(
        "runtime",
        { actions: { permissionRequest: { requestId, callId, tool, args } } },
        { modelVisibility: "hidden", invocationId },
      );
    },
    permissionDecision(requestId: string, decision: "approve" | "reject", reason?: string) {
      return push(
        "user",
        { actions: { permissionDecision: { requestId, decision, ...(reason !== undefined ? { reason } : {}) } } },
        { modelVisibility: "hidden" },
      );
    },
    recoveryNotice(rerun: string[], needsReview: string[], reissued: string[] = []) {
      const atSeq = events.length + 1;
      return push(
        "runtime",
        { actions: { stateDelta: { recoveryNotice: { atSeq, rerun, needsReview, reissued } } } },
        { modelVisibility: "hidden" },
      );
    },
    error(code: string, message: string) {
      return push("runtime", { content: { type: "error", code, message } }, { modelVisibility: "hidden" });
    },
    turnClose(reason: "completed" | "stopped" | "failed") {
      return push("runtime", { actions: { turnClose: { reason } } }, { modelVisibility: "hidden" });
    },
    /** A hidden runtime event (default: a state change the model never sees). */
    hidden(actions: EventActions = { stateDelta: { note: 1 } }) {
      return push("runtime", { actions }, { modelVisibility: "hidden" });
    },
    /** One model answer under a new invocation (no request event): optional text, then calls; returns the call ids. */
    answer(text: string | null, calls: { name: string; args?: unknown }[] = []): string[] {
      invocations += 1;
      invocationId = `inv${invocations}`;
      if (text !== null) ev.modelText(text);
      return calls.map((c) => {
        const callId = `call${toolOf.size + 1}`;
        ev.modelCall(callId, c.name, c.args ?? {});
        return callId;
      });
    },
    /** A call's dispatch (read) and its response. */
    result(callId: string, name: string, response: unknown, status: Status = "ok", actions?: EventActions) {
      toolOf.set(callId, name);
      ev.dispatch(callId, "read");
      return ev.response(callId, status, response, actions);
    },
    /** A full step: an answer with one call and its result; returns the call id. */
    step(name: string, args: unknown, response: unknown): string {
      const [id] = ev.answer(null, [{ name, args }]);
      ev.result(id!, name, response);
      return id!;
    },
    /** The events the model sees. */
    get visible(): Event[] {
      return events.filter((e) => e.modelVisibility === "visible");
    },
  };
  return ev;
}

/** Freezes a value and everything reachable from it, so a projection that writes to its input throws. */
export { deepFreeze } from "../../../src/tools";

/** mulberry32: a small seeded PRNG, so generated cases are the same on every run. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}
