/**
 * A turn as an OpenTelemetry trace (docs/API.md#traces), built from the log alone: one
 * `invoke_agent` span for the turn, a `chat` span per model call and an `execute_tool` span
 * per tool call, with the GenAI semantic-convention attributes. Pure: the same events give
 * the same bytes, because every id is derived from the session, the turn and a seq, and every
 * time is an event's `at`. Only references, codes and counts go in, never text, arguments,
 * results or messages: a trace holds no words of the conversation (docs/API.md#traces).
 */
import type { OtlpAttribute, OtlpSpan, OtlpSpanEvent, OtlpTrace } from "../contract/trace";
import type { Event } from "../log";
import { int, nanos, SCOPE, spanIdOf, str, strs, traceIdOf } from "./otlp";

export type TraceOptions = {
  sessionId: string;
  turnId: string;
  serviceName: string;
  /** The model the turn ran with (the session's as of the turn's first event). */
  model: { provider: string; name: string };
};

export type { OtlpAttribute, OtlpSpan, OtlpSpanEvent, OtlpTrace, OtlpValue } from "../contract/trace";
export { nanos, SCOPE, spanIdOf, traceIdOf } from "./otlp";

type Chat = {
  invocationId: string;
  first: Event;
  last: Event;
  input: number;
  output: number;
  finish: string[];
  purpose: string | null;
  failed: string | null;
  events: OtlpSpanEvent[];
};
type Tool = {
  callId: string;
  name: string;
  /** The call's first event: its span id, which never changes as the call goes on. */
  idSeq: number;
  first: Event;
  last: Event;
  effect: string | null;
  status: string | null;
  events: OtlpSpanEvent[];
};

/**
 * The OTLP/JSON trace of one turn. `events` are the turn's events in seq order (others are
 * ignored), read once and not kept: they may be a page-by-page read of the log, with the bodies
 * left out. The turn span ends at its `turnClose`, or at its last event while it is open.
 */
export function buildTurnTrace(events: Iterable<Event>, opts: TraceOptions): OtlpTrace {
  const { sessionId, turnId } = opts;
  const traceId = traceIdOf(sessionId, turnId);
  let first: Event | null = null;
  let lastSeen: Event | null = null;
  const chats = new Map<string, Chat>();
  const tools = new Map<string, Tool>();
  const turnEvents: OtlpSpanEvent[] = [];
  let close: Event | null = null;
  let outcome: string | null = null;

  const chatOf = (invocationId: string, e: Event): Chat => {
    let c = chats.get(invocationId);
    if (!c) {
      c = { invocationId, first: e, last: e, input: 0, output: 0, finish: [], purpose: null, failed: null, events: [] };
      chats.set(invocationId, c);
    }
    c.last = e;
    return c;
  };
  const toolOf = (callId: string, name: string, e: Event): Tool => {
    let t = tools.get(callId);
    if (!t) {
      t = { callId, name, idSeq: e.seq, first: e, last: e, effect: null, status: null, events: [] };
      tools.set(callId, t);
    }
    t.last = e;
    return t;
  };

  for (const e of events) {
    if (e.turnId !== turnId) continue;
    first ??= e;
    lastSeen = e;
    const a = e.actions ?? {};
    const delta = a.stateDelta ?? {};
    const c = e.content;
    if (a.modelRequest && e.invocationId) {
      const chat = chatOf(e.invocationId, e);
      const purpose = (a.modelRequest as { purpose?: unknown }).purpose;
      if (typeof purpose === "string") chat.purpose = purpose;
    }
    const attempt = delta.modelAttempt as
      | { invocationId?: string; attempt?: number; code?: string; message?: string; retryAt?: string }
      | undefined;
    if (attempt?.invocationId) {
      chatOf(attempt.invocationId, e).events.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.model_attempt_failed",
        attributes: [
          int("highwater.attempt", Number(attempt.attempt ?? 0)),
          str("error.type", String(attempt.code ?? "")),
          ...(attempt.retryAt ? [str("highwater.attempt.retry_at", attempt.retryAt)] : []),
        ],
      });
    }
    if (e.author === "model" && e.invocationId) {
      const chat = chatOf(e.invocationId, e);
      if (a.tokenUsage) {
        chat.input += a.tokenUsage.inputTokens;
        chat.output += a.tokenUsage.outputTokens;
      }
      if (typeof delta.finishReason === "string") chat.finish.push(delta.finishReason);
    }
    if (c?.type === "functionCall") toolOf(c.callId, c.name, e).last = e;
    if (a.toolDispatch) {
      const t = toolOf(a.toolDispatch.callId, a.toolDispatch.tool, e);
      t.effect = a.toolDispatch.effect;
      if (t.first.content?.type === "functionCall") t.first = e;
    }
    if (a.permissionRequest) {
      const t = tools.get(a.permissionRequest.callId);
      t?.events.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.approval_requested",
        attributes: [str("highwater.approval.request_id", a.permissionRequest.requestId)],
      });
    }
    if (a.permissionDecision) {
      const t = [...tools.values()].find((x) =>
        x.events.some((ev) => ev.attributes.some((at) => valueIs(at, a.permissionDecision!.requestId))),
      );
      t?.events.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.approval_decided",
        attributes: [
          str("highwater.approval.request_id", a.permissionDecision.requestId),
          str("highwater.approval.decision", a.permissionDecision.decision),
        ],
      });
    }
    if (c?.type === "functionResponse") {
      const t = toolOf(c.callId, c.name, e);
      t.status = c.status;
      if (a.toolRecovery)
        t.events.push({
          timeUnixNano: nanos(e.at),
          name: "highwater.tool_recovery",
          attributes: [str("highwater.recovery.strategy", a.toolRecovery.strategy)],
        });
    }
    const run = delta.runStarted as { runId?: string; cause?: string } | undefined;
    if (run?.cause === "recovery")
      turnEvents.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.recovery",
        attributes: [str("highwater.run.id", String(run.runId ?? "")), str("highwater.run.cause", "recovery")],
      });
    const notice = delta.recoveryNotice as
      | { rerun?: string[]; needsReview?: string[]; reissued?: string[] }
      | undefined;
    if (notice)
      turnEvents.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.recovery_notice",
        attributes: [
          strs("highwater.recovery.rerun", notice.rerun ?? []),
          strs("highwater.recovery.needs_review", notice.needsReview ?? []),
          strs("highwater.recovery.reissued", notice.reissued ?? []),
        ],
      });
    if (c?.type === "error") {
      turnEvents.push({
        timeUnixNano: nanos(e.at),
        name: "highwater.error",
        attributes: [str("error.type", c.code)],
      });
      // The call that gave up: the error's own invocation, else the last call of the turn.
      const failedCall = e.invocationId ?? [...chats.keys()].at(-1);
      if (c.code === "model_failed" && failedCall) chatOf(failedCall, e).failed = c.code;
    }
    if (a.turnClose) {
      close = e;
      outcome = a.turnClose.reason;
    }
  }

  if (!first || !lastSeen) return wrap(opts, []);
  const rootId = spanIdOf("invoke_agent", sessionId, turnId, first.seq);
  const end = close ?? lastSeen;
  const { provider, name: model } = opts.model;
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: "invoke_agent highwater",
    kind: 1,
    startTimeUnixNano: nanos(first.at),
    endTimeUnixNano: nanos(end.at),
    attributes: [
      str("gen_ai.operation.name", "invoke_agent"),
      str("gen_ai.provider.name", provider),
      str("gen_ai.agent.name", "highwater"),
      str("gen_ai.conversation.id", sessionId),
      str("gen_ai.request.model", model),
      str("highwater.turn.id", turnId),
      ...(outcome ? [str("highwater.turn.outcome", outcome)] : []),
      int(
        "gen_ai.usage.input_tokens",
        sum([...chats.values()], (c) => c.input),
      ),
      int(
        "gen_ai.usage.output_tokens",
        sum([...chats.values()], (c) => c.output),
      ),
    ],
    events: turnEvents,
    status: outcome === "failed" ? { code: 2, message: "turn failed" } : { code: 0 },
  };
  const chatSpans = [...chats.values()].map(
    (c): OtlpSpan => ({
      traceId,
      spanId: spanIdOf("chat", sessionId, turnId, c.first.seq),
      parentSpanId: rootId,
      name: `chat ${model}`,
      kind: 3,
      startTimeUnixNano: nanos(c.first.at),
      endTimeUnixNano: nanos(c.last.at),
      attributes: [
        str("gen_ai.operation.name", "chat"),
        str("gen_ai.provider.name", provider),
        str("gen_ai.request.model", model),
        str("gen_ai.conversation.id", sessionId),
        int("gen_ai.usage.input_tokens", c.input),
        int("gen_ai.usage.output_tokens", c.output),
        strs("gen_ai.response.finish_reasons", c.finish),
        str("highwater.invocation.id", c.invocationId),
        ...(c.purpose ? [str("highwater.model_request.purpose", c.purpose)] : []),
      ],
      events: c.events,
      status: c.failed ? { code: 2, message: c.failed } : { code: 0 },
    }),
  );
  const toolSpans = [...tools.values()].map(
    (t): OtlpSpan => ({
      traceId,
      spanId: spanIdOf("execute_tool", sessionId, turnId, t.idSeq),
      parentSpanId: rootId,
      name: `execute_tool ${t.name}`,
      kind: 1,
      startTimeUnixNano: nanos(t.first.at),
      endTimeUnixNano: nanos(t.last.at),
      attributes: [
        str("gen_ai.operation.name", "execute_tool"),
        str("gen_ai.tool.name", t.name),
        str("gen_ai.tool.call.id", t.callId),
        str("gen_ai.tool.type", "function"),
        str("gen_ai.conversation.id", sessionId),
        ...(t.effect ? [str("highwater.tool.effect", t.effect)] : []),
        ...(t.status ? [str("highwater.tool.status", t.status)] : []),
      ],
      events: t.events,
      status: t.status === "error" || t.status === "interrupted" ? { code: 2, message: t.status } : { code: 0 },
    }),
  );
  return wrap(opts, [root, ...chatSpans, ...toolSpans]);
}

function wrap(opts: TraceOptions, spans: OtlpSpan[]): OtlpTrace {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str("service.name", opts.serviceName)] },
        scopeSpans: [{ scope: { ...SCOPE }, spans }],
      },
    ],
  };
}

function sum<T>(xs: T[], f: (x: T) => number): number {
  return xs.reduce((n, x) => n + f(x), 0);
}

function valueIs(a: OtlpAttribute, s: string): boolean {
  return "stringValue" in a.value && a.value.stringValue === s;
}
