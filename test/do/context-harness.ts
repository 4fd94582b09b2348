import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { validateSummary } from "../../src/context";
import type { Event, EventStore } from "../../src/log";
import type { ModelConfig, ModelPart, ModelProvider, ModelRequest, NeutralMessage } from "../../src/model/types";
import type { SessionOptions } from "../../src/projections";
import type { DeltaFrame, RuntimePolicy, SessionRuntime } from "../../src/runtime";
import type { ChildrenPort } from "../../src/runtime/children";
import type { RuntimeFeature } from "../../src/runtime/feature";
import { applyMigrations } from "../../src/storage";
import { parseAllowedHosts } from "../../src/tools";
import type { McpHub } from "../../src/tools/mcp";
import { runtimeOn } from "./runtime-on";

/** ~chars/4 of a request as sent: the same measure the runtime budgets with. */
export function requestChars(r: Pick<ModelRequest, "messages" | "tools">): number {
  return JSON.stringify({ messages: r.messages, tools: r.tools }).length;
}

export type Recorded = { kind: "turn" | "summary"; tokens: number; request: ModelRequest };

/** A compaction request: highwater's send no tools (and end with a user message asking for the summary). */
export function isSummaryRequest(r: ModelRequest): boolean {
  return r.tools.length === 0;
}

/** docs/API.md §1: a compaction request sends no tools, or ends with a user message containing "summary". */
export function looksLikeCompaction(r: ModelRequest): boolean {
  const last = r.messages.at(-1);
  return r.tools.length === 0 || (last?.role === "user" && /summary/i.test(last.content));
}

/** A summary that passes validation: five sections, the goal carried, the seqs of the piece cited. */
export function scriptedSummary(r: ModelRequest): string {
  const system = r.messages[0]?.content as string;
  const max = Number(/under (\d+) characters/.exec(system)?.[1] ?? 2000);
  const user = r.messages.at(-1)!.content as string;
  const seqs = [...user.matchAll(/\[seq (\d+)\]/g)].map((m) => Number(m[1]));
  const goal = /GOAL: ([^\n]*)/.exec(user)?.[1] ?? "unknown";
  const text = [
    `## Goal and deliverable\nGOAL: ${goal}`,
    `## Progress and next steps\nWorked through events ${seqs[0]}–${seqs.at(-1)}. Next: keep writing sections.`,
    "## Constraints, decisions and facts\nSections are numbered; plan.md holds the plan.",
    "## Open items\nNone.",
    `## Key files and event references\nnotes/plan.md; events [seq ${seqs[0]}] to [seq ${seqs.at(-1)}].`,
  ].join("\n\n");
  if (!validateSummary(text, max).ok) throw new Error(`scripted summary does not fit ${max}`);
  return text;
}

export type Step =
  | { kind: "call"; name: string; args: Record<string, unknown>; text?: string }
  | { kind: "answer"; text: string };

/**
 * A scripted model: `next(request, n)` decides each turn step (n counts non-summary calls);
 * compaction requests get `summarise(request)`. Usage reports ~chars/3.8 (a tokenizer a bit
 * less generous than chars/4), so the runtime's estimate really starts from the report.
 */
export function scriptedProvider(opts: {
  next: (request: ModelRequest, n: number) => Step;
  summarise?: (request: ModelRequest) => string;
}): ModelProvider & { recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  let n = 0;
  let calls = 0;
  return {
    name: "openai",
    recorded,
    async *stream(request: ModelRequest): AsyncGenerator<ModelPart> {
      const snapshot = structuredClone(request);
      const tokens = Math.ceil(requestChars(request) / 4);
      const usage = { type: "usage" as const, inputTokens: Math.ceil(requestChars(request) / 3.8), outputTokens: 50 };
      if (isSummaryRequest(request)) {
        recorded.push({ kind: "summary", tokens, request: snapshot });
        yield { type: "text-delta", text: (opts.summarise ?? scriptedSummary)(request) };
        yield usage;
        return;
      }
      recorded.push({ kind: "turn", tokens, request: snapshot });
      const step = opts.next(request, n++);
      if (step.kind === "answer") yield { type: "text-delta", text: step.text };
      else {
        if (step.text) yield { type: "text-delta", text: step.text };
        yield { type: "tool-call", callId: `sc-${++calls}`, name: step.name, args: step.args };
      }
      yield usage;
      yield { type: "finish", reason: step.kind === "call" ? "tool-calls" : "stop" };
    },
  };
}

/** The tool results of the last tool message in a request. */
export function lastResults(r: ModelRequest) {
  const tool = r.messages.findLast((m): m is Extract<NeutralMessage, { role: "tool" }> => m.role === "tool");
  return tool?.content ?? [];
}

let counter = 0;

export type Harness = {
  runtime: SessionRuntime;
  store: EventStore;
  state: DurableObjectState;
  sessionId: string;
  /** Drives alarm slices until the turn closes. */
  runTurn: (text: string) => Promise<void>;
  events: () => Event[];
  /** A fresh runtime over the same storage, as the object has after an eviction or a restart. */
  reopen: (provider?: ModelProvider) => SessionRuntime;
  /** Every delta frame sent to sockets, in order. */
  deltas: DeltaFrame[];
};

/**
 * A real SessionRuntime on a real session object's SQLite, with the model replaced by
 * `provider` and outbound fetches (http_fetch) by `fetch`. Alarms are driven by hand.
 */
export async function withSession<T>(
  opts: {
    provider: ModelProvider;
    model: ModelConfig;
    fetch?: typeof fetch;
    offloadThresholdBytes?: number;
    policy?: Partial<RuntimePolicy>;
    now?: () => number;
    providerFor?: () => ModelProvider;
    setAlarm?: (at: number) => void;
    deleteAlarm?: () => void;
    options?: SessionOptions;
    /** Other session objects (sub-sessions), and the owner directory the session records for them. */
    children?: ChildrenPort;
    directoryId?: string;
    /** MCP servers for this session (a fresh hub per runtime, as after a restart). */
    mcp?: () => McpHub;
    /** The runtime's features (absent: the built-in ones) and the session's principal. */
    features?: readonly RuntimeFeature[];
    principal?: string;
    env?: Record<string, unknown>;
  },
  fn: (h: Harness) => Promise<T>,
): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`context-${Date.now()}-${counter++}`));
  return runInDurableObject(stub, async (_instance, state) => {
    const sql = state.storage.sql;
    const transactionSync = <R>(f: () => R): R => state.storage.transactionSync(f);
    // An object migrates lazily with its seq 1 (docs/API.md §7.26); this harness writes it itself.
    transactionSync(() => applyMigrations(sql));
    const sessionId = state.id.toString();
    const deltas: DeltaFrame[] = [];
    const make = (provider: ModelProvider, providerFor = opts.providerFor) => {
      return runtimeOn(sql, transactionSync, sessionId, {
        setAlarm: async (at) => opts.setAlarm?.(at),
        deleteAlarm: async () => opts.deleteAlarm?.(),
        providerFor: providerFor ?? (() => provider),
        fetch: opts.fetch ?? (() => Promise.reject(new Error("no network in this test"))),
        config: {
          httpAllowedHosts: parseAllowedHosts("data.test"),
          offloadThresholdBytes: opts.offloadThresholdBytes ?? 32_768,
        },
        onDelta: (f) => deltas.push(f),
        policy: { backoffMs: [0, 0, 0, 0], sliceBackoffMs: [0, 0, 0, 0], ...opts.policy },
        ...(opts.mcp ? { mcp: opts.mcp() } : {}),
        ...(opts.now ? { now: opts.now } : {}),
        ...(opts.children ? { children: opts.children } : {}),
        ...(opts.features ? { features: opts.features } : {}),
        ...(opts.principal ? { principal: () => opts.principal ?? null } : {}),
        ...(opts.env ? { env: opts.env } : {}),
      });
    };
    const { store, runtime } = make(opts.provider);
    runtime.create({
      id: sessionId,
      parentId: null,
      options: opts.options ?? {},
      model: opts.model,
      ...(opts.directoryId ? { directoryId: opts.directoryId } : {}),
    });
    const events = () => {
      const out: Event[] = [];
      for (let after = 0; ; ) {
        const page = store.readAfter(after, 1000);
        if (page.length === 0) return out;
        out.push(...page);
        after = page.at(-1)!.seq;
      }
    };
    const runTurn = async (text: string) => {
      await runtime.postMessage({ text, source: "http" });
      for (let i = 0; runtime.summary?.openTurn; i++) {
        if (i > 50) throw new Error("the turn did not close");
        await runtime.alarm();
      }
    };
    const reopen = (provider?: ModelProvider) =>
      make(provider ?? opts.provider, provider ? undefined : opts.providerFor).runtime;
    return fn({ runtime, store, state, sessionId, runTurn, events, reopen, deltas });
  });
}
