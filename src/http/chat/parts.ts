/**
 * The AI SDK's UI message stream (protocol v1) built from what a WebSocket receives: committed
 * events, `delta` frames and `session` frames (docs/API.md#chat-ai-sdk-ui-message-stream). Pure:
 * it holds only how far it has got (the open step, the length of text it has sent), never a
 * second copy of the log or of the streamed text, so the stream says what the log says.
 */
import type { Event } from "../../log";
import { toolOutcome } from "./outputs";

/** One UI message stream chunk, as `uiMessageChunkSchema` in the `ai` package reads it. */
export type UIChunk = { type: string } & Record<string, unknown>;

/** A `delta` frame (docs/API.md#live-updates-over-a-websocket), with `replace` on the in-flight replay. */
export type DeltaInput = {
  invocationId: string;
  attempt: number;
  kind: "text" | "thinking";
  text: string;
  replace?: boolean;
};

/** The part of a `Session` that decides whether the turn has stopped for now. */
export type SessionInput = {
  highWater: number;
  openTurn: boolean;
  status: string;
  wait?: unknown;
  /** Questions of tools' servers waiting for an answer (docs/API.md#questions-from-mcp-servers). */
  pendingInputs?: unknown[];
};

type OpenPart = { id: string; sent: number };
type Step = {
  invocationId: string;
  attempt: number;
  /** Whether this attempt put anything in the message (so a failed attempt needs a `reset-step`). */
  emitted: boolean;
  text: OpenPart | null;
  reasoning: OpenPart | null;
  /** Kinds already committed in this attempt: a late delta of theirs is ignored. */
  committed: Set<string>;
};

function newStep(invocationId: string, attempt: number): Step {
  return { invocationId, attempt, emitted: false, text: null, reasoning: null, committed: new Set() };
}

/** A step reset by a failed attempt takes the attempt number of the next delta. */
const ANY_ATTEMPT = 0;

const FINISH_REASON = { completed: "stop", stopped: "other", failed: "error" } as const;

/**
 * Folds one turn's answer's frames into UI chunks. `turnId` is the turn streamed; `knownCalls` are
 * tool calls the client's message already holds (an approval it answered), whose outcomes it may
 * be sent; `joined` says a user message joined the turn after that message's model call, so the
 * answer ends at the next model call (docs/API.md#chat-ai-sdk-ui-message-stream).
 */
export class ChatParts {
  readonly #turnId: string;
  readonly #messageId: string | undefined;
  readonly #knownCalls: Set<string>;
  readonly #approvals = new Set<string>();
  #step: Step | null = null;
  #seen = 0;
  #session: SessionInput | null = null;
  #done = false;
  /** A later user message joined the turn: its answer is another message, and this one ends before it. */
  #joined = false;

  constructor(opts: { turnId: string; messageId?: string; knownCalls?: string[]; joined?: boolean }) {
    this.#turnId = opts.turnId;
    this.#joined = opts.joined ?? false;
    this.#messageId = opts.messageId;
    this.#knownCalls = new Set(opts.knownCalls ?? []);
  }

  /** True once `finish` was produced: the stream ends with `data: [DONE]`. */
  get done(): boolean {
    return this.#done;
  }

  /** The last seq folded: a new connection continues with `after` = this. */
  get seen(): number {
    return this.#seen;
  }

  start(): UIChunk[] {
    return [{ type: "start", ...(this.#messageId ? { messageId: this.#messageId } : {}) }];
  }

  /** A committed event (every event after the cursor, in order, whatever its turn). */
  event(e: Event): UIChunk[] {
    if (this.#done || e.seq <= this.#seen) return [];
    this.#seen = e.seq;
    if (e.turnId !== this.#turnId) return this.#checkPause();
    const out: UIChunk[] = [];
    const a = e.actions ?? {};
    const c = e.content;
    const delta = a.stateDelta ?? {};
    if (e.author === "user" && c?.type === "text") this.#joined = true;
    if (a.modelRequest && (a.modelRequest as { purpose?: string }).purpose !== "compaction" && e.invocationId) {
      if (this.#step?.invocationId !== e.invocationId) {
        // The model call that answers a joined message starts the next answer: this one is complete.
        if (this.#joined) return this.#finish("other");
        out.push(...this.#finishStep(), { type: "start-step" });
        this.#step = newStep(e.invocationId, 1);
      }
    }
    const notice = delta.recoveryNotice as { reissued?: string[] } | undefined;
    if (notice) {
      if (this.#step && notice.reissued?.includes(this.#step.invocationId)) out.push(...this.#reset());
      if (!this.#joined) out.push({ type: "data-highwater-recovery", id: `recovery-${e.seq}`, data: notice });
    }
    const attempt = delta.modelAttempt as { invocationId?: string } | undefined;
    if (attempt && this.#step && attempt.invocationId === this.#step.invocationId) {
      out.push(...this.#reset());
      out.push({ type: "data-highwater-attempt", data: delta.modelAttempt, transient: true });
    }
    if (e.author === "model" && c && this.#step && e.invocationId === this.#step.invocationId) {
      if (c.type === "thinking") out.push(...this.#committed("reasoning", c.text));
      else if (c.type === "text") out.push(...this.#committed("text", c.text));
    }
    // Output of a model call this stream did not see start belongs to an earlier answer.
    if (
      e.author === "model" &&
      c?.type === "functionCall" &&
      this.#step &&
      e.invocationId === this.#step.invocationId
    ) {
      this.#knownCalls.add(c.callId);
      this.#step.emitted = true;
      out.push({ type: "tool-input-available", toolCallId: c.callId, toolName: c.name, input: c.args, dynamic: true });
    }
    if (a.permissionRequest && this.#knownCalls.has(a.permissionRequest.callId)) {
      this.#approvals.add(a.permissionRequest.requestId);
      out.push({
        type: "tool-approval-request",
        approvalId: a.permissionRequest.requestId,
        toolCallId: a.permissionRequest.callId,
      });
    }
    const decision = a.permissionDecision;
    if (decision && this.#approvals.has(decision.requestId))
      out.push({
        type: "tool-approval-response",
        approvalId: decision.requestId,
        approved: decision.decision === "approve",
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      });
    if (c?.type === "functionResponse" && this.#knownCalls.has(c.callId)) out.push(toolOutput(e, c));
    if (c?.type === "error" && !this.#joined) {
      out.push({ type: "data-highwater-error", id: `error-${e.seq}`, data: { code: c.code, message: c.message } });
      out.push({ type: "error", errorText: `${c.code}: ${c.message}` });
    }
    if (a.turnClose) {
      // Text streamed but never committed (a stop cuts it) is not in the log: drop it from the message.
      if (a.turnClose.reason === "stopped" && (this.#step?.text || this.#step?.reasoning)) out.push(...this.#reset());
      return [...out, ...this.#finish(FINISH_REASON[a.turnClose.reason])];
    }
    return [...out, ...this.#checkPause()];
  }

  #finish(finishReason: string): UIChunk[] {
    this.#done = true;
    return [...this.#finishStep(), { type: "finish", finishReason }];
  }

  /** Streamed model output of the step in progress (not durable; the committed event follows). */
  delta(d: DeltaInput): UIChunk[] {
    const step = this.#step;
    if (this.#done || !step || d.invocationId !== step.invocationId || d.attempt < step.attempt) return [];
    // After a reset the next attempt's number is whatever its first delta says (the socket is ordered).
    if (step.attempt === ANY_ATTEMPT) step.attempt = d.attempt;
    const out: UIChunk[] = d.attempt > step.attempt ? this.#reset(d.attempt) : [];
    const kind = d.kind === "text" ? "text" : "reasoning";
    let part = step[kind];
    if (!part) {
      if (step.committed.has(kind)) return out;
      part = { id: `${kind}-${step.invocationId}`, sent: 0 };
      step[kind] = part;
      step.emitted = true;
      out.push({ type: `${kind}-start`, id: part.id });
    }
    const text = d.replace ? d.text.slice(part.sent) : d.text;
    if (text) {
      out.push({ type: `${kind}-delta`, id: part.id, delta: text });
      part.sent += text.length;
    }
    return out;
  }

  /** A `ready` or `session` frame: the turn pauses (an approval, a wait) once the stream has caught up with it. */
  session(s: SessionInput): UIChunk[] {
    if (this.#done) return [];
    this.#session = s;
    return this.#checkPause();
  }

  #checkPause(): UIChunk[] {
    const s = this.#session;
    if (!s || this.#seen < s.highWater) return [];
    const paused = s.status === "waiting_approval" || s.status === "waiting_input" || s.status === "waiting";
    if (s.openTurn && !paused) return [];
    const out = [...this.#closeParts(), ...this.#finishStep()];
    if (s.status === "waiting") out.push({ type: "data-highwater-wait", data: s.wait ?? null });
    // A tool part awaiting input: the questions its server asked, answered by POST .../inputs/:requestId.
    if (s.status === "waiting_input") out.push({ type: "data-highwater-input", data: s.pendingInputs ?? [] });
    const toolPause = s.status === "waiting_approval" || s.status === "waiting_input";
    out.push({ type: "finish", finishReason: toolPause ? "tool-calls" : "other" });
    this.#done = true;
    return out;
  }

  /** A committed thinking or text block: what the deltas did not send, then its end. */
  #committed(kind: "text" | "reasoning", text: string): UIChunk[] {
    const step = this.#step!;
    const out: UIChunk[] = [];
    let part = step[kind];
    if (!part) {
      if (!text) return out;
      part = { id: `${kind}-${step.invocationId}`, sent: 0 };
      out.push({ type: `${kind}-start`, id: part.id });
    }
    if (text.length > part.sent) out.push({ type: `${kind}-delta`, id: part.id, delta: text.slice(part.sent) });
    out.push({ type: `${kind}-end`, id: part.id });
    step[kind] = null;
    step.emitted = true;
    step.committed.add(kind);
    return out;
  }

  /** A failed attempt's output leaves the message (`reset-step`); the next attempt streams afresh. */
  #reset(attempt = ANY_ATTEMPT): UIChunk[] {
    const step = this.#step!;
    const out: UIChunk[] = step.emitted ? [{ type: "reset-step" }] : [];
    this.#step = newStep(step.invocationId, attempt);
    return out;
  }

  #closeParts(): UIChunk[] {
    const step = this.#step;
    if (!step) return [];
    const out: UIChunk[] = [];
    if (step.reasoning) out.push({ type: "reasoning-end", id: step.reasoning.id });
    if (step.text) out.push({ type: "text-end", id: step.text.id });
    step.reasoning = null;
    step.text = null;
    return out;
  }

  #finishStep(): UIChunk[] {
    if (!this.#step) return [];
    const out = [...this.#closeParts(), { type: "finish-step" }];
    this.#step = null;
    return out;
  }
}

/** A tool outcome as the part the AI SDK shows: output, error, or denied. */
function toolOutput(e: Event, c: { callId: string; name: string; status: string; response: unknown }): UIChunk {
  const o = toolOutcome(e, c);
  if (o.state === "output-available")
    return { type: "tool-output-available", toolCallId: c.callId, output: o.output, dynamic: true };
  if (o.state === "output-denied") return { type: "tool-output-denied", toolCallId: c.callId };
  return { type: "tool-output-error", toolCallId: c.callId, errorText: o.errorText, dynamic: true };
}
