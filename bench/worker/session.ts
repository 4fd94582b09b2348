import { CHECKPOINT_SECTIONS, type CheckpointPayload, checkpointDraft, writeCheckpointRow } from "../../src/context";
import { type EventDraft, EventStore, ModelViewReads, verifySuffix } from "../../src/log";
import type { ModelPart, ModelProvider } from "../../src/model";
import { buildRecoveryPlan } from "../../src/projections";
import type { ChildrenPort } from "../../src/runtime/children";
import { SessionRuntime } from "../../src/runtime/session-runtime";
import { SessionObject } from "../../src/session";
import { type Caller, ownerHash } from "../../src/session/admission";
import { applyMigrations } from "../../src/storage";
import { makePlaceholder } from "../../src/tools";
import {
  closedTurn,
  DEFAULT_SHAPE,
  type FillShape,
  LONG_OPEN_EVENTS,
  longOpenTurn,
  OFFLOAD_TEXT_BYTES,
  openTurn,
} from "./fixtures";
import { stepFloor } from "./floor";
import { appendDrafts } from "./log";
import { BENCH_FEATURES, noopRuns } from "./noop-tool";
import { childDelivery, forkSourceRead, type ReadHost, readPage, seedWork, suffixReads, wholeFork } from "./reads";
import { type Counter, filler, installRowCounter, MODEL, POOL, type RowCount, takeCount } from "./rows";

/** The principal the bench session objects are created for and read by. */
export const BENCH_CALLER: Caller = { principal: "bench" };

let lastConstruct: { ms: number; rows: RowCount; at: number } | null = null;
/**
 * Whether the next instance counts its SQL from its constructor on (`benchCountNext`). Off for
 * timed takeovers: wrapping every cursor and sizing every row costs ~15% of a cold takeover.
 */
let countNextConstruct = true;

/**
 * The fake model of the step benches, in the object (so it answers instantly and no network or
 * output gate is in the way): `toolAnswers` answers of `callsPerAnswer` no-op tool calls
 * (`noop`, ./noop-tool.ts), then a text answer. Every request it receives is
 * stamped (Date.now(), ms) and counted.
 */
type FakeScript = {
  toolAnswers: number;
  callsPerAnswer: number;
  stamps: number[];
  onRequest?: () => void;
};
let fake: FakeScript = { toolAnswers: 0, callsPerAnswer: 1, stamps: [] };

function fakeProvider(): ModelProvider {
  return {
    name: "openai",
    async *stream(): AsyncIterable<ModelPart> {
      fake.stamps.push(Date.now());
      const first = fake.onRequest;
      fake.onRequest = undefined;
      first?.();
      if (fake.toolAnswers > 0) {
        fake.toolAnswers--;
        for (let i = 0; i < fake.callsPerAnswer; i++)
          yield { type: "tool-call", callId: `call_${crypto.randomUUID()}`, name: "noop", args: {} };
        yield { type: "usage", inputTokens: 1000, outputTokens: 10 };
        yield { type: "finish", reason: "tool-calls" };
        return;
      }
      yield { type: "text-delta", text: "Done." };
      yield { type: "usage", inputTokens: 1000, outputTokens: 2 };
      yield { type: "finish", reason: "stop" };
    },
  };
}

/**
 * The real SessionObject with its SQL counted. The bench fills it through a SessionRuntime
 * of its own over the same storage, then `ctx.abort()`s so the next call meets a fresh
 * instance that loads everything the way a woken object does. Its model is the fake above
 * (the one hook in src/: `SessionObject.modelProvider`); everything else is the real object.
 */
export class BenchSession extends SessionObject {
  readonly #counter: Counter;
  /** `benchCommit`'s runtime and drafts, kept between its calls. */
  #committing: { runtime: SessionRuntime; drafts: EventDraft[] } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    const at = Date.now();
    const t0 = performance.now();
    const counter = installRowCounter(ctx.storage.sql);
    counter.on = countNextConstruct;
    countNextConstruct = true;
    // The deployment's features, as createHighwater hands them to the real object.
    super(ctx, env, BENCH_FEATURES);
    this.#counter = counter;
    // Counting stays on until the first bench method: a takeover counts from here to its request.
    lastConstruct = {
      ms: performance.now() - t0,
      rows: takeCount({ ...counter, cursors: [...counter.cursors] }, true),
      at,
    };
  }

  protected override modelProvider(): ModelProvider {
    return fakeProvider();
  }

  /** Scheduled alarms do nothing: the bench drives the real alarm handler (`super.alarm()`) itself. */
  override async alarm(): Promise<void> {}

  #quiet() {
    takeCount(this.#counter, false);
  }

  #runtime(children?: ChildrenPort): { runtime: SessionRuntime; store: EventStore } {
    this.#committing = null;
    const sql = this.ctx.storage.sql;
    const transactionSync = <T>(fn: () => T): T => this.ctx.storage.transactionSync(fn);
    // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); the bench writes around it.
    transactionSync(() => applyMigrations(sql));
    const store = new EventStore(sql, this.ctx.id.toString(), transactionSync);
    const runtime = new SessionRuntime({
      sessionId: this.ctx.id.toString(),
      store,
      view: new ModelViewReads(sql, transactionSync, () => store.head().highWater),
      sql,
      transactionSync,
      setAlarm: async () => {},
      deleteAlarm: async () => {},
      providerFor: () => {
        throw new Error("bench: no model");
      },
      fetch: (input, init) => fetch(input, init),
      config: { httpAllowedHosts: [], offloadThresholdBytes: 32_768 },
      onCommit: () => {},
      onDelta: () => {},
      features: BENCH_FEATURES,
      ...(children ? { children } : {}),
    });
    return { runtime, store };
  }

  /** A closed turn whose tool result was offloaded the way T2 does it: the blob first, then the marker. */
  #offloadedTurn(store: EventStore, seq: number, salt: number): EventDraft[] {
    const drafts = closedTurn(seq, salt);
    const response = drafts[4]!;
    const content = response.content as { callId: string; name: string; response: unknown };
    const text = filler(OFFLOAD_TEXT_BYTES, salt);
    const meta = store.blobs.put(text, "text/plain; charset=utf-8");
    drafts[4] = {
      ...response,
      content: { ...content, response: text } as EventDraft["content"],
      actions: {
        stateDelta: {
          offload: {
            sha256: meta.sha256,
            bytes: meta.bytes,
            preview: makePlaceholder(content.name, text, meta).preview,
          },
        },
      },
    };
    return drafts;
  }

  /**
   * Builds a session of about `n` events: closed turns, a checkpoint (event + cache row,
   * through src/context) `shape.tail` events before the open turn, more closed turns (of which
   * `shape.offloads` have an offloaded result), and the open turn. Call until it answers `done`.
   */
  benchFill(n: number, partial: Partial<FillShape> = {}, chunk = 20_000) {
    this.#quiet();
    const shape = { ...DEFAULT_SHAPE, ...partial };
    const { runtime, store } = this.#runtime();
    if (!runtime.summary) {
      runtime.create({
        id: this.ctx.id.toString(),
        parentId: null,
        options: { title: "bench" },
        model: { ...MODEL, contextWindow: shape.contextWindow },
        // The bench reads its sessions as BENCH_CALLER (docs/API.md §7.26: the owner is in seq 1).
        owner: ownerHash(this.ctx.id.toString(), BENCH_CALLER.principal),
      });
    }
    const openLen = shape.open === "long" ? LONG_OPEN_EVENTS : shape.open === "small" ? 4 : 0;
    const cut = n - shape.tail - openLen;
    const turnsAfter = Math.floor(shape.tail / 8);
    const every = shape.offloads > 0 ? Math.max(1, Math.floor(turnsAfter / shape.offloads)) : 0;
    let offloaded = 0;
    const commitTurnsUntil = (limit: number, afterCheckpoint: number | null) => {
      for (;;) {
        const head = store.head().highWater;
        const drafts: EventDraft[] = [];
        let seq = head;
        while (seq + 8 <= limit && drafts.length < 1000) {
          const j = afterCheckpoint === null ? -1 : (seq - afterCheckpoint) / 8;
          const off = j >= 0 && every > 0 && j % every === 0 && offloaded < shape.offloads;
          if (off) offloaded++;
          drafts.push(...(off ? this.#offloadedTurn(store, seq + 1, seq) : closedTurn(seq + 1, seq)));
          seq += 8;
        }
        if (drafts.length === 0) return;
        runtime.commit(drafts);
      }
    };
    // At most `chunk` events per call: a long synchronous call can make wrangler restart workerd.
    const start = store.head().highWater;
    commitTurnsUntil(Math.min(cut, start + chunk), null);
    if (store.head().highWater + 8 <= cut) return { done: false, events: store.head().highWater };
    // As a compaction records it: a hidden stateDelta.checkpoint event, then its cache row.
    const through = store.head().highWater;
    const payload: CheckpointPayload = {
      id: `ckpt_${through}`,
      throughSeq: through,
      sourceDigest: store.digestAt(through)!,
      prevId: null,
      summary: CHECKPOINT_SECTIONS.map((title, i) => `## ${title}\n${filler(380, i)}`).join("\n"),
      placeholders: [],
    };
    const base = { turnId: crypto.randomUUID(), runId: crypto.randomUUID() };
    runtime.commit([checkpointDraft(payload, base)], ([e]) =>
      writeCheckpointRow(this.ctx.storage.sql, { ...payload, eventSeq: e!.seq }),
    );
    commitTurnsUntil(n - openLen, store.head().highWater);
    if (shape.open === "small") runtime.commit(openTurn(store.head().highWater + 1));
    if (shape.open === "long") {
      for (const group of longOpenTurn(store.head().highWater + 1, (salt) => this.#offload(store, salt)))
        runtime.commit(group);
    }
    return { done: true, events: store.head().highWater, checkpointThrough: through, offloaded };
  }

  #offload(store: EventStore, salt: number) {
    const text = filler(OFFLOAD_TEXT_BYTES, salt);
    const meta = store.blobs.put(text, "text/plain; charset=utf-8");
    return {
      text,
      offload: { sha256: meta.sha256, bytes: meta.bytes, preview: makePlaceholder("read_file", text, meta).preview },
    };
  }

  /**
   * `k` commits of one ~500-byte event each through `SessionRuntime.commit`: what the runtime
   * pays per event (the append, the summary fold and its `meta` write, the change check). The
   * append contest takes the session back to its mark after each call (`benchRewind`, untimed),
   * so every batch starts at the same log size, as its other contenders' do.
   */
  benchCommit(k: number) {
    this.#quiet();
    // One runtime across calls, as the real object keeps one across requests: anything else that
    // writes (every other method builds its own runtime) drops it, and a rewind builds it again.
    this.#committing ??= this.#commitRuntime();
    const { runtime, drafts } = this.#committing;
    const t0 = performance.now();
    for (let i = 0; i < k; i++) runtime.commit([drafts[i % POOL]!]);
    return { inObjectMs: performance.now() - t0, highWater: runtime.summary?.highWater ?? 0 };
  }

  /**
   * `k` whole turns through `SessionRuntime.commit`, committed the way the loop commits one:
   * the message, the request, the answer with its call, T1, T2, the request, the answer, the
   * close (8 commits of 8 events).
   */
  benchTurnCommits(k: number) {
    this.#quiet();
    const { runtime, store } = this.#runtime();
    const t0 = performance.now();
    for (let i = 0; i < k; i++) for (const d of closedTurn(store.head().highWater + 1, i)) runtime.commit([d]);
    return { inObjectMs: performance.now() - t0, highWater: runtime.summary?.highWater ?? 0 };
  }

  /** The floor of `k` model steps on this session (./floor.ts). */
  benchStepFloor(k: number) {
    this.#quiet();
    const { runtime, store } = this.#runtime();
    return stepFloor(this.ctx.storage.sql, store, runtime, k);
  }

  /** `m` context builds through the runtime's real builder; rows counted for the first. */
  benchContext(m: number) {
    const { runtime } = this.#runtime();
    takeCount(this.#counter, true);
    const t0 = performance.now();
    const first = runtime.buildContext();
    const rows = takeCount(this.#counter, false);
    for (let i = 1; i < m; i++) runtime.buildContext();
    return {
      inObjectMs: performance.now() - t0,
      rows,
      messages: first.messages.length,
      rawFromSeq: first.rawFromSeq,
      checkpoint: first.checkpoint?.id ?? null,
      estimatedTokens: first.estimatedTokens,
    };
  }

  /**
   * A whole turn on the real path (issue 12, items 1 and 2): `postMessage` as the API calls it,
   * then the object's own alarm handler, slice after slice, until the turn closes. The fake model
   * answers `toolAnswers` times with `callsPerAnswer` no-op tool calls, then with text. With
   * `count`, the rows SQLite read and wrote are counted; a timed turn leaves it off, since the
   * counting wrapper's own cost (a closure per cursor, the row bytes) is not the step's.
   */
  async benchTurn(toolAnswers: number, callsPerAnswer: number, count = false) {
    this.#quiet();
    if (!(await this.getSession(BENCH_CALLER)).ok) {
      const c = await this.create(BENCH_CALLER, { options: { title: "steps" }, model: MODEL, parentId: null });
      if (!c.ok) throw new Error(`bench: create: ${c.error.message}`);
    }
    fake = { toolAnswers, callsPerAnswer, stamps: [] };
    const runsBefore = noopRuns.n;
    // Rows SQLite read and wrote for the whole turn (Durable Objects bill both).
    takeCount(this.#counter, count);
    const posted = await this.postMessage(BENCH_CALLER, { text: "Go on.", source: "http" });
    if (!posted.ok) throw new Error(`bench: postMessage: ${posted.error.message}`);
    let slices = 0;
    for (;;) {
      const s = await this.getSession(BENCH_CALLER);
      if (!s.ok) throw new Error(`bench: getSession: ${s.error.message}`);
      if (!s.value.openTurn) {
        if (s.value.status !== "idle") throw new Error(`bench: turn ended ${s.value.status}`);
        break;
      }
      if (++slices > 1000) throw new Error("bench: the turn does not end");
      await super.alarm();
    }
    const stamps = fake.stamps;
    const rows = takeCount(this.#counter, false);
    return {
      rows: { read: rows.rowsRead, written: rows.rowsWritten },
      toolsRun: noopRuns.n - runsBefore,
      requests: stamps.length,
      gapsMs: stamps.slice(1).map((t, i) => t - stamps[i]!),
      slices,
      highWater: (await this.getSession(BENCH_CALLER)).ok ? this.#highWater() : 0,
    };
  }

  /** The log's head seq (a read of the last row: MAX() inside COALESCE would scan the table). */
  #highWater(): number {
    return (
      this.ctx.storage.sql.exec<{ seq: number }>("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]
        ?.seq ?? 0
    );
  }

  /**
   * The runtime's own takeover on a fresh instance (issue 12, item 5): the constructor already ran
   * (migrations, the summary, the alarm check) on this call's arrival; now the object's alarm
   * handler, as the platform calls it, until the fake model receives the continued request.
   * Reports the constructor's and the request's timestamps, and the SQL from one to the other.
   */
  async benchTakeover() {
    const construct = lastConstruct;
    if (!construct) throw new Error("bench: not a fresh instance");
    lastConstruct = null;
    let requestAt = Number.NaN;
    let rows: RowCount | null = null;
    fake = {
      toolAnswers: 0,
      callsPerAnswer: 1,
      stamps: [],
      onRequest: () => {
        requestAt = Date.now();
        rows = takeCount(this.#counter, false);
      },
    };
    const alarmAt = Date.now();
    await super.alarm();
    const s = await this.getSession(BENCH_CALLER);
    return {
      constructMs: construct.ms,
      constructRows: construct.rows,
      toRequestMs: requestAt - construct.at,
      alarmToRequestMs: requestAt - alarmAt,
      rows: rows as RowCount | null,
      requests: fake.stamps.length,
      closed: s.ok && !s.value.openTurn,
    };
  }

  /** Remembers the log's head and the caches in `meta`, so `benchRewind` can undo a takeover. */
  benchMark() {
    this.#quiet();
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS bench_mark (key TEXT PRIMARY KEY, value TEXT)");
    sql.exec("DELETE FROM bench_mark");
    sql.exec("INSERT INTO bench_mark SELECT key, value FROM meta");
    sql.exec("INSERT INTO bench_mark VALUES ('__head', ?)", String(this.#highWater()));
    return { head: this.#highWater() };
  }

  /** Back to the mark: the takeover's events dropped, `meta` as it was (`cold`: without the summary cache). */
  /** `benchCommit`'s runtime and drafts, as of the log now. */
  #commitRuntime() {
    return { runtime: this.#runtime().runtime, drafts: appendDrafts(this.ctx.id.toString()) };
  }

  benchRewind(cold: boolean) {
    this.#quiet();
    const committing = this.#committing !== null;
    this.#committing = null;
    const sql = this.ctx.storage.sql;
    const head = Number(sql.exec<{ value: string }>("SELECT value FROM bench_mark WHERE key = '__head'").one().value);
    this.ctx.storage.transactionSync(() => {
      sql.exec("DELETE FROM events WHERE seq > ?", head);
      sql.exec("DELETE FROM model_view WHERE seq > ?", head);
      sql.exec("DELETE FROM meta");
      sql.exec("INSERT INTO meta SELECT key, value FROM bench_mark WHERE key <> '__head'");
      if (cold) sql.exec("DELETE FROM meta WHERE key = 'summary'");
    });
    // The commit contender's runtime, loaded here (untimed) as the object would have it loaded.
    if (committing) this.#committing = this.#commitRuntime();
    return { head: this.#highWater() };
  }

  /**
   * What a woken object does before it continues an open turn: the constructor (migrations,
   * summary, head) already ran; then the recovery plan as the runtime's takeover builds it.
   * Kept for the rows-read comparison across sizes; the timed takeover is `benchTakeover`.
   */
  benchRecover() {
    const construct = lastConstruct;
    takeCount(this.#counter, true);
    const t0 = performance.now();
    const { runtime, store } = this.#runtime();
    const turn = runtime.summary?.openTurn;
    if (!turn) throw new Error("bench: no open turn");
    const problems = verifySuffix(store, turn.startSeq);
    const events = store.readFrom(turn.lastModelRequestSeq ?? turn.startSeq);
    const plan = buildRecoveryPlan(events, () => false);
    const planMs = performance.now() - t0;
    return {
      construct,
      planMs,
      planRows: takeCount(this.#counter, false),
      problems,
      plan,
      highWater: store.head().highWater,
    };
  }

  /** Cold start (item 6): this call met a fresh instance; its constructor's cost and the first getSession. */
  async benchFirstSession() {
    const construct = lastConstruct;
    lastConstruct = null;
    const t0 = performance.now();
    const s = await this.getSession(BENCH_CALLER);
    this.#quiet();
    return { constructMs: construct?.ms ?? Number.NaN, getSessionMs: performance.now() - t0, ok: s.ok };
  }

  /** Whether the next fresh instance counts its SQL (then abort): see `countNextConstruct`. */
  benchCountNext(on: boolean): void {
    this.#quiet();
    countNextConstruct = on;
  }

  benchAbort(): void {
    this.ctx.abort("bench: fresh instance");
  }

  /** Runs `fn` with this object's SQL counted. */
  async #counted<T>(fn: () => Promise<T> | T): Promise<{ value: T; rows: RowCount }> {
    this.#quiet();
    this.#counter.on = true;
    try {
      const value = await fn();
      return { value, rows: takeCount(this.#counter, false) };
    } finally {
      this.#quiet();
    }
  }

  /** The bounded reads of bench/worker/reads.ts, on this object. */
  async benchReads(
    op: "seed" | "page" | "forkSource" | "suffix" | "child" | "fork",
    ...args: unknown[]
  ): Promise<unknown> {
    const host: ReadHost = {
      id: this.ctx.id.toString(),
      session: this,
      caller: BENCH_CALLER,
      sessions: (this.env as Env & { SESSIONS: DurableObjectNamespace }).SESSIONS,
      runtime: (children) => this.#runtime(children),
      counted: (fn) => this.#counted(fn),
    };
    const [a, b, c] = args as [never, never, never];
    if (op === "seed") return seedWork(host, a, b, c);
    if (op === "page") return readPage(host, a, b);
    if (op === "forkSource") return forkSourceRead(host, a);
    if (op === "suffix") return suffixReads(host, a);
    if (op === "child") return childDelivery(host, a);
    return wholeFork(host, a);
  }

  benchEmpty(): null {
    this.#quiet();
    return null;
  }
}
