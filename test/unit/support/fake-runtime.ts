/**
 * A `RuntimeCtx` over an in-memory log, for driving the loop, the model step and the tool step
 * in Node. Commits append to `events` with the next seq and fold the summary with the real
 * projection; the store answers the reads the steps make from that array. The SQL port keeps
 * nothing (no checkpoints, no slice or in-flight records), which is what a fresh session has.
 */
import { StopSource } from "../../../src/contract/deadline";
import type { Event, EventDraft, EventStore, ModelViewReads } from "../../../src/log";
import type { ModelPart, ModelProvider } from "../../../src/model/types";
import {
  type CallState,
  projectRunState,
  reduceSummary,
  type SessionSummary,
  toSession,
} from "../../../src/projections";
import type { DeltaFrame, RuntimeCtx, RuntimeDeps } from "../../../src/runtime/deps";
import type { FailpointId } from "../../../src/runtime/failpoints";
import type { RuntimeFeature } from "../../../src/runtime/feature";
import { DEFAULT_POLICY, type RuntimePolicy } from "../../../src/runtime/retry";
import { UnderWay } from "../../../src/runtime/under-way";
import type { SqlLike } from "../../../src/storage";
import type { ToolDefinition } from "../../../src/tools/types";

export type FakeRuntime = RuntimeCtx & {
  events: Event[];
  deltas: DeltaFrame[];
  failpoints: FailpointId[];
  /** A stop: aborts the current signal (the real runtime's `stop` also commits the close). */
  abort(): void;
  /** Appends events as another writer would (a stop's close, input arriving meanwhile). */
  append(drafts: EventDraft[]): Event[];
  /** Each slice end, in order: the time the next slice is due, or `"parked"`. */
  ends: (number | "parked")[];
  leases: number[];
};

const emptySql: SqlLike = {
  exec: (() => ({ toArray: () => [], one: () => undefined, raw: () => [][Symbol.iterator]() })) as never,
};

export function fakeRuntime(
  log: Event[],
  opts: {
    tools?: ToolDefinition<unknown>[];
    provider?: ModelProvider;
    policy?: Partial<RuntimePolicy>;
    now?: () => number;
    onFailpoint?: (id: FailpointId) => void | Promise<void>;
    needsApproval?: (call: CallState) => boolean;
    features?: readonly RuntimeFeature[];
  } = {},
): FakeRuntime {
  const events: Event[] = [...log];
  let summary: SessionSummary | null = events.reduce<SessionSummary | null>(reduceSummary, null);
  let controller = new StopSource();
  const tools = new Map((opts.tools ?? []).map((t) => [t.name, t]));
  const sessionId = events[0]?.sessionId ?? "s1";
  const append = (drafts: EventDraft[]): Event[] => {
    const out = drafts.map((d) => {
      const seq = events.length + 1;
      const e = { ...d, seq, sessionId, at: d.at ?? new Date(seq * 1000).toISOString(), digest: `d${seq}` } as Event;
      events.push(e);
      summary = reduceSummary(summary, e);
      return e;
    });
    return out;
  };
  const store = {
    head: () => ({ highWater: events.length, headDigest: `d${events.length}` }),
    get: (seq: number) => events[seq - 1] ?? null,
    digestAt: (seq: number) => (seq === 0 ? "0".repeat(64) : (events[seq - 1]?.digest ?? null)),
    readFrom: (from: number) => events.filter((e) => e.seq >= from),
    readCallOutcomes: (callId: string) =>
      events.filter(
        (e) => callIdOf(e) === callId && (e.content?.type === "functionResponse" || !!e.actions?.permissionRequest),
      ),
    blobs: {},
  } as unknown as EventStore;
  const view = {
    contextEventsAfter: (after: number) =>
      events.filter((e) => e.seq > after && (e.modelVisibility === "visible" || e.actions?.modelRequest)),
  } as unknown as ModelViewReads;
  const ends: (number | "parked")[] = [];
  const leases: number[] = [];
  const deps: RuntimeDeps = {
    sessionId,
    store,
    view,
    sql: emptySql,
    transactionSync: (fn) => fn(),
    setAlarm: async () => undefined,
    deleteAlarm: async () => undefined,
    providerFor: () => {
      if (!opts.provider) throw new Error("no provider in this test");
      return opts.provider;
    },
    fetch: () => Promise.reject(new Error("no network in unit tests")),
    config: { httpAllowedHosts: [], offloadThresholdBytes: 1_000_000 },
    env: {},
    onCommit: () => undefined,
    onDelta: () => undefined,
    ...(opts.features ? { features: opts.features } : {}),
  };
  const policy = { ...DEFAULT_POLICY, ...opts.policy };
  const now = opts.now ?? (() => Date.now());
  const rt: FakeRuntime = {
    events,
    deltas: [],
    failpoints: [],
    ends,
    leases,
    deps,
    policy,
    get summary() {
      return summary;
    },
    require() {
      if (!summary) throw new Error("no session");
      return summary;
    },
    session: () => toSession(rt.require(), () => true),
    commit(drafts, also) {
      const out = append(drafts);
      also?.(out);
      return out;
    },
    append,
    turnSuffix() {
      const t = summary?.openTurn;
      return t ? store.readFrom(t.lastModelRequestSeq ?? t.startSeq) : [];
    },
    runState() {
      return projectRunState(this.turnSuffix());
    },
    needsApproval: (call: CallState) => opts.needsApproval?.(call) ?? false,
    toolFor: (name) => tools.get(name) ?? null,
    unavailableServerOf: () => null,
    deniedHosts: () => [],
    beforeTurn: async () => undefined,
    contextInput: (model) => ({ summary: rt.require(), model, system: "You are a test.", tools: [] }),
    get signal() {
      return controller.signal;
    },
    get stops() {
      return controller;
    },
    abort() {
      controller.abort(new Error("stopped"));
      controller = new StopSource();
    },
    now,
    async failpoint(id) {
      rt.failpoints.push(id);
      await opts.onFailpoint?.(id);
    },
    delta(frame) {
      rt.deltas.push(frame);
    },
    endAttempt: () => undefined,
    lease: async (at) => void leases.push(at),
    endSlice: async (wake) => void ends.push(wake),
    incarnation: "inc-test",
    underWay: new UnderWay(emptySql, "inc-test"),
    attachedChildren: new Set(),
  };
  return rt;
}

function callIdOf(e: Event): string | undefined {
  const c = e.content;
  if (c?.type === "functionCall" || c?.type === "functionResponse") return c.callId;
  const a = e.actions;
  return a?.toolDispatch?.callId ?? a?.permissionRequest?.callId;
}

/** A provider that streams the given parts for each call, in turn; `requests` counts the calls. */
export function scriptedProvider(...answers: (ModelPart[] | (() => AsyncIterable<ModelPart>))[]) {
  let calls = 0;
  const provider: ModelProvider & { calls: () => number } = {
    name: "openai",
    calls: () => calls,
    stream() {
      const next = answers[calls++];
      if (!next) throw new Error(`the model was called ${calls} times; the test scripted ${answers.length}`);
      if (typeof next === "function") return next();
      return (async function* () {
        for (const p of next) yield p;
      })();
    },
  };
  return provider;
}
