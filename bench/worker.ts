/**
 * The bench Worker (bench/wrangler.bench.toml): Durable Objects that run our real log code
 * and the peers side by side in one workerd, driven over HTTP by bench/runner.ts.
 *
 * Timing: every call answers only after its writes are durable (the output gate holds the
 * reply until the implicit transaction commits), so the runner times whole batches from
 * Node, commit included (wall clock, and the CPU time of this Worker's workerd process),
 * and subtracts an empty call to the same object. The in-object clock is reported too, as
 * a cross-check: local workerd advances `performance.now()` during synchronous code (the
 * Spectre freeze is a production behaviour), but only by whole milliseconds, and the
 * window it sees ends before the commit.
 */

import { DurableObject } from "cloudflare:workers";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { Lifecycle } from "agents/lifecycle";
import { Sessions } from "agents/sessions";
import { CHECKPOINT_SECTIONS, type CheckpointPayload, checkpointDraft, writeCheckpointRow } from "../src/context";
import { canonical, chainDigest, type EventDraft, EventStore, GENESIS_DIGEST } from "../src/log";
import type { ModelConfig, ModelPart, ModelProvider } from "../src/model";
import { buildRecoveryPlan } from "../src/projections";
import { SessionRuntime } from "../src/runtime/session-runtime";
import { SessionObject } from "../src/session";
import { type Caller, ownerHash } from "../src/session/ownership";
import { applyMigrations } from "../src/storage";
import { makePlaceholder } from "../src/tools";
import type { BenchBytes } from "./bytes";

/** The principal the bench session objects are created for and read by. */
const BENCH_CALLER: Caller = { principal: "bench" };

export { BenchBytes } from "./bytes";

type BenchEnv = Env & {
  BENCH_LOG: DurableObjectNamespace<BenchLog>;
  BENCH_SESSION: DurableObjectNamespace<BenchSession>;
  BENCH_AGENTS: DurableObjectNamespace<BenchAgentsSessions>;
  BENCH_CHAT: DurableObjectNamespace<BenchChat>;
  BENCH_BYTES: DurableObjectNamespace<BenchBytes>;
};

/** Serialized size of one benchmark event (our canonical body, the peers' stored JSON). */
const EVENT_BYTES = 500;
const MODEL: ModelConfig = { provider: "openai", name: "bench", contextWindow: 128_000, maxOutputTokens: 8_192 };
const POOL = 64;

/** Printable filler of exactly `length` characters; `salt` makes each one differ. */
function filler(length: number, salt: number): string {
  const words = ["durable", "object", "event", "log", "hash", "chain", "append", "context", "agent", "turn"];
  let out = `${salt.toString(36)} `;
  for (let i = salt; out.length < length; i++) out += `${words[i % words.length]} `;
  return out.slice(0, length);
}

/** Text of the length that makes `make(text)` serialize to `target` characters. */
function sized(target: number, salt: number, make: (text: string) => string): string {
  const overhead = make("").length;
  return filler(Math.max(1, target - overhead), salt);
}

const hex64 = (n: number) => n.toString(16).padStart(64, "0");

/** What a block of code cost in SQL: statements run and rows SQLite read and wrote (`cursor.rowsRead`). */
export type RowCount = { statements: number; rowsRead: number; rowsWritten: number; bytesRead?: number };

/** Counting only while `on`: a bulk fill must not keep 100k cursors alive. */
type Counter = { on: boolean; cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[]; bytes: number };

/** Bytes of one row as read: string lengths (UTF-16 units, ~bytes for our ASCII bodies), blob sizes, 8 per number. */
function rowBytes(row: unknown): number {
  let n = 0;
  for (const v of Array.isArray(row) ? row : Object.values(row as object)) {
    if (typeof v === "string") n += v.length;
    else if (v instanceof ArrayBuffer) n += v.byteLength;
    else n += 8;
  }
  return n;
}

/**
 * Wraps `exec` on the object's `SqlStorage` (one shared instance per object), so every
 * reader, including code we do not own (constructor, runtime, store), is counted: statements,
 * rows SQLite read and wrote (`cursor.rowsRead`), and the bytes of the rows handed to JS.
 */
function installRowCounter(sql: SqlStorage): Counter {
  const counter: Counter = { on: true, cursors: [], bytes: 0 };
  const exec = sql.exec;
  sql.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    const cursor = exec.call(this, query, ...bindings);
    if (counter.on) {
      counter.cursors.push(cursor);
      // Count each row once, whichever way it is taken (toArray may call next inside).
      let inside = false;
      const c = cursor as unknown as Record<string, (...a: unknown[]) => unknown>;
      for (const m of ["next", "toArray", "one"] as const) {
        const orig = c[m]!.bind(cursor);
        c[m] = (...a: unknown[]) => {
          if (inside) return orig(...a);
          inside = true;
          try {
            const out = orig(...a);
            if (counter.on) {
              if (m === "next") {
                const r = out as IteratorResult<unknown>;
                if (!r.done) counter.bytes += rowBytes(r.value);
              } else if (m === "toArray") for (const row of out as unknown[]) counter.bytes += rowBytes(row);
              else counter.bytes += rowBytes(out);
            }
            return out;
          } finally {
            inside = false;
          }
        };
      }
    }
    return cursor;
  } as SqlStorage["exec"];
  return counter;
}

/** Totals since the last take; counting goes on only if `keepOn`. */
function takeCount(c: Counter, keepOn: boolean): RowCount {
  const out = { statements: c.cursors.length, rowsRead: 0, rowsWritten: 0, bytesRead: c.bytes };
  for (const cursor of c.cursors) {
    out.rowsRead += cursor.rowsRead;
    out.rowsWritten += cursor.rowsWritten;
  }
  c.cursors = [];
  c.bytes = 0;
  c.on = keepOn;
  return out;
}

// ------------------------------------------------------------------------------------------
// (a) our EventStore against a raw INSERT of the same bytes

/** Drafts whose committed canonical body is EVENT_BYTES long (seq/at/sessionId included). */
function appendDrafts(sessionId: string): EventDraft[] {
  const ids = { turnId: crypto.randomUUID(), runId: crypto.randomUUID(), invocationId: crypto.randomUUID() };
  const at = new Date().toISOString();
  return Array.from({ length: POOL }, (_, i) => {
    const make = (text: string): EventDraft => ({
      author: "model",
      modelVisibility: "visible",
      ...ids,
      content: { type: "text", text },
    });
    const text = sized(EVENT_BYTES, i, (t) => canonical({ ...make(t), seq: 100_000, sessionId, at }));
    return make(text);
  });
}

export class BenchLog extends DurableObject<BenchEnv> {
  #store: EventStore;
  readonly #drafts: EventDraft[];
  readonly #rawBodies: string[];
  readonly #sql: SqlStorage;
  readonly #txn = <T>(fn: () => T): T => this.ctx.storage.transactionSync(fn);

  constructor(ctx: DurableObjectState, env: BenchEnv) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    ctx.storage.transactionSync(() => {
      applyMigrations(this.#sql);
      this.#sql.exec(
        "CREATE TABLE IF NOT EXISTS raw_events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, digest TEXT NOT NULL)",
      );
    });
    const id = ctx.id.toString();
    this.#store = new EventStore(this.#sql, id, this.#txn);
    this.#drafts = appendDrafts(id);
    // The same bytes our append writes: the canonical body and a 64-hex digest.
    this.#rawBodies = this.#drafts.map((d, i) =>
      canonical({ ...d, seq: 100_000 + i, sessionId: id, at: new Date().toISOString() }),
    );
  }

  empty(): null {
    return null;
  }

  /** Sizes of both tables and the body length of the newest event. */
  info() {
    const head = this.#store.head();
    const raw = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM raw_events").one().n;
    const last = this.#sql.exec<{ body: string }>("SELECT body FROM events ORDER BY seq DESC LIMIT 1").toArray()[0];
    return { events: head.highWater, raw, bodyBytes: last?.body.length ?? 0, rawBytes: this.#rawBodies[0]!.length };
  }

  /** Pre-fills both tables to `n` rows in large transactions (not timed); call with growing `n`. */
  fill(n: number) {
    while (this.#store.head().highWater < n) {
      const k = Math.min(1000, n - this.#store.head().highWater);
      const base = this.#store.head().highWater;
      this.#store.append(Array.from({ length: k }, (_, i) => this.#drafts[(base + i) % POOL]!));
    }
    const have = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM raw_events").one().n;
    this.#txn(() => {
      for (let s = have + 1; s <= n; s++) this.#raw(s);
    });
    return this.info();
  }

  #raw(seq: number) {
    this.#sql.exec(
      "INSERT INTO raw_events (seq, body, digest) VALUES (?, ?, ?)",
      seq,
      this.#rawBodies[seq % POOL]!,
      hex64(seq),
    );
  }

  /** `k` appends through the real EventStore.append, one event per call, as the runtime does. */
  appendOurs(k: number) {
    const t0 = performance.now();
    const base = this.#store.head().highWater;
    for (let i = 0; i < k; i++) this.#store.append([this.#drafts[(base + i) % POOL]!]);
    return { inObjectMs: performance.now() - t0, head: this.#store.head().highWater };
  }

  /** `k` plain INSERTs of the same bytes into a table with no index and no hashing. */
  appendRaw(k: number) {
    const t0 = performance.now();
    const base = this.#sql.exec<{ m: number }>("SELECT COALESCE(MAX(seq), 0) AS m FROM raw_events").one().m;
    for (let i = 1; i <= k; i++) this.#raw(base + i);
    return { inObjectMs: performance.now() - t0 };
  }

  /**
   * The limit of our append's own design (issue 12, item 3): per event, a raw INSERT of the
   * same canonical bytes into a plain table plus a synchronous chain SHA-256 of those bytes
   * (the same `chainDigest` our append uses), in the same loop.
   */
  appendRawHashed(k: number) {
    const t0 = performance.now();
    const base = this.#sql.exec<{ m: number }>("SELECT COALESCE(MAX(seq), 0) AS m FROM raw_events").one().m;
    let prev = GENESIS_DIGEST;
    for (let i = 1; i <= k; i++) {
      const body = this.#rawBodies[(base + i) % POOL]!;
      prev = chainDigest(prev, body);
      this.#sql.exec("INSERT INTO raw_events (seq, body, digest) VALUES (?, ?, ?)", base + i, body, prev);
    }
    return { inObjectMs: performance.now() - t0 };
  }

  /** `k` events appended as groups of `group` (one `EventStore.append`, one transaction, per group). */
  appendOursGroup(k: number, group: number) {
    const t0 = performance.now();
    const base = this.#store.head().highWater;
    for (let i = 0; i < k; i += group)
      this.#store.append(Array.from({ length: group }, (_, j) => this.#drafts[(base + i + j) % POOL]!));
    return { inObjectMs: performance.now() - t0, head: this.#store.head().highWater };
  }

  /** Drops what a timed run appended, so every run starts at the same log size. */
  truncate(events: number, raw: number) {
    this.#sql.exec("DELETE FROM events WHERE seq > ?", events);
    this.#sql.exec("DELETE FROM raw_events WHERE seq > ?", raw);
    this.#store = new EventStore(this.#sql, this.ctx.id.toString(), this.#txn);
    return this.info();
  }

  /** `m` reads of the newest `n` events (readAfter, parsed): the bounded read a page or socket does. */
  readTail(n: number, m: number) {
    const head = this.#store.head().highWater;
    let rows = 0;
    const t0 = performance.now();
    for (let i = 0; i < m; i++) rows += this.#store.readAfter(Math.max(0, head - n), n).length;
    return { inObjectMs: performance.now() - t0, rows };
  }

  /**
   * One ingredient of an append, `k` times, so the runner can time each one alone (CPU of
   * the whole call minus an empty call): canonical JSON, the chain digest, the INSERT with
   * and without our indexes and transaction wrapper, and the whole append.
   */
  profile(phase: ProfilePhase, k: number) {
    const id = this.ctx.id.toString();
    const at = new Date().toISOString();
    const events = this.#drafts.map((d, i) => ({ ...d, seq: i + 1, sessionId: id, at }));
    const bodies = events.map((e) => canonical(e));
    const sql = this.#sql;
    const insert = (i: number) =>
      sql.exec(
        "INSERT INTO p_events (seq, turn_id, author, visibility, kind, call_id, body, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        i + 1,
        events[0]!.turnId ?? null,
        "model",
        "visible",
        "text",
        null,
        bodies[i % POOL]!,
        hex64(i),
      );
    const scratch = (indexed: boolean) => {
      sql.exec("DROP TABLE IF EXISTS p_events");
      sql.exec("CREATE TABLE p_events AS SELECT * FROM events WHERE 0");
      if (indexed) {
        sql.exec("CREATE INDEX p_call ON p_events (call_id) WHERE call_id IS NOT NULL");
        sql.exec("CREATE INDEX p_kind ON p_events (kind, seq)");
      }
    };
    let sink = 0;
    const base = this.#store.head().highWater;
    const t0 = performance.now();
    switch (phase) {
      case "empty":
        break;
      case "canonical":
        for (let i = 0; i < k; i++) sink += canonical(events[i % POOL]!).length;
        break;
      case "hash":
        for (let i = 0; i < k; i++) sink += chainDigest(GENESIS_DIGEST, bodies[i % POOL]!).length;
        break;
      case "insertPlain":
        scratch(false);
        for (let i = 0; i < k; i++) insert(i);
        break;
      case "insertIndexed":
        scratch(true);
        for (let i = 0; i < k; i++) insert(i);
        break;
      case "insertIndexedTxn":
        scratch(true);
        for (let i = 0; i < k; i++) this.#txn(() => insert(i));
        break;
      case "txnEmpty":
        for (let i = 0; i < k; i++) this.#txn(() => undefined);
        break;
      case "append":
        for (let i = 0; i < k; i++) this.#store.append([this.#drafts[(base + i) % POOL]!]);
        break;
    }
    const inObjectMs = performance.now() - t0;
    if (phase.startsWith("insert")) sql.exec("DROP TABLE IF EXISTS p_events");
    return { inObjectMs, sink };
  }
}

const PROFILE_PHASES = [
  "empty",
  "canonical",
  "hash",
  "insertPlain",
  "insertIndexed",
  "insertIndexedTxn",
  "txnEmpty",
  "append",
] as const;
type ProfilePhase = (typeof PROFILE_PHASES)[number];

// ------------------------------------------------------------------------------------------
// Context build and recovery: the real SessionObject (constructor, summary, projections)

type TurnIds = { turnId: string; runId: string };

/** One closed turn of 8 events: user, request, call, dispatch, result, request, answer, close. */
function closedTurn(seq: number, salt: number): EventDraft[] {
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
function openTurn(seq: number): EventDraft[] {
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
const CHECKPOINT_TAIL = 200;

let lastConstruct: { ms: number; rows: RowCount; at: number } | null = null;
/**
 * Whether the next instance counts its SQL from its constructor on (`benchCountNext`). Off for
 * timed takeovers: wrapping every cursor and sizing every row costs ~15% of a cold takeover.
 */
let countNextConstruct = true;

/** Text over the offload threshold (32 KiB): what a tool result that gets archived looks like. */
const OFFLOAD_TEXT_BYTES = 40_000;

/**
 * The fake model of the step benches, in the object (so it answers instantly and no network or
 * output gate is in the way): `toolAnswers` answers of `callsPerAnswer` no-op tool calls
 * (`list_files` of an empty workspace), then a text answer. Every request it receives is
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
          yield { type: "tool-call", callId: `call_${crypto.randomUUID()}`, name: "list_files", args: {} };
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
const DEFAULT_SHAPE: FillShape = {
  tail: CHECKPOINT_TAIL,
  offloads: 0,
  open: "small",
  contextWindow: MODEL.contextWindow,
};
/** Events and offloaded results of the long open turn (issue 12, item 5). */
const LONG_OPEN_EVENTS = 2_000;
const LONG_OPEN_OFFLOADS = 50;

/**
 * The real SessionObject with its SQL counted. The bench fills it through a SessionRuntime
 * of its own over the same storage, then `ctx.abort()`s so the next call meets a fresh
 * instance that loads everything the way a woken object does. Its model is the fake above
 * (the one hook in src/: `SessionObject.modelProvider`); everything else is the real object.
 */
export class BenchSession extends SessionObject {
  readonly #counter: Counter;

  constructor(ctx: DurableObjectState, env: Env) {
    const at = Date.now();
    const t0 = performance.now();
    const counter = installRowCounter(ctx.storage.sql);
    counter.on = countNextConstruct;
    countNextConstruct = true;
    super(ctx, env);
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

  #runtime(): { runtime: SessionRuntime; store: EventStore } {
    const sql = this.ctx.storage.sql;
    const transactionSync = <T>(fn: () => T): T => this.ctx.storage.transactionSync(fn);
    // SessionObject migrates lazily with seq 1 (CONTRACT §7.26); the bench writes around it.
    transactionSync(() => applyMigrations(sql));
    const store = new EventStore(sql, this.ctx.id.toString(), transactionSync);
    const runtime = new SessionRuntime({
      sessionId: this.ctx.id.toString(),
      store,
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
        // The bench reads its sessions as BENCH_CALLER (CONTRACT §7.26: the owner is in seq 1).
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
   * pays per event (the append, the summary fold and its `meta` write, the change check).
   */
  benchCommit(k: number) {
    this.#quiet();
    const { runtime } = this.#runtime();
    const drafts = appendDrafts(this.ctx.id.toString());
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
   * answers `toolAnswers` times with `callsPerAnswer` no-op tool calls, then with text.
   */
  async benchTurn(toolAnswers: number, callsPerAnswer: number) {
    this.#quiet();
    if (!(await this.getSession(BENCH_CALLER)).ok) {
      const c = await this.create(BENCH_CALLER, { options: { title: "steps" }, model: MODEL, parentId: null });
      if (!c.ok) throw new Error(`bench: create: ${c.error.message}`);
    }
    fake = { toolAnswers, callsPerAnswer, stamps: [] };
    // Rows SQLite read and wrote for the whole turn (Durable Objects bill both).
    takeCount(this.#counter, true);
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
      requests: stamps.length,
      gapsMs: stamps.slice(1).map((t, i) => t - stamps[i]!),
      slices,
      highWater: (await this.getSession(BENCH_CALLER)).ok ? this.#highWater() : 0,
    };
  }

  #highWater(): number {
    return this.ctx.storage.sql.exec<{ m: number }>("SELECT COALESCE(MAX(seq), 0) AS m FROM events").one().m;
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
  benchRewind(cold: boolean) {
    this.#quiet();
    const sql = this.ctx.storage.sql;
    const head = Number(sql.exec<{ value: string }>("SELECT value FROM bench_mark WHERE key = '__head'").one().value);
    this.ctx.storage.transactionSync(() => {
      sql.exec("DELETE FROM events WHERE seq > ?", head);
      sql.exec("DELETE FROM model_view WHERE seq > ?", head);
      sql.exec("DELETE FROM meta");
      sql.exec("INSERT INTO meta SELECT key, value FROM bench_mark WHERE key <> '__head'");
      if (cold) sql.exec("DELETE FROM meta WHERE key = 'summary'");
    });
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
    const problems = store.verifySuffix(turn.startSeq);
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

  benchEmpty(): null {
    this.#quiet();
    return null;
  }
}

/**
 * A long open turn left by a crash (issue 12, item 5): the message, then rounds of request,
 * call, T1, T2 (every tenth result offloaded), `LONG_OPEN_EVENTS` events in all, ending in a
 * dispatched write with no outcome. Yields commit groups of ≤ 1000 events.
 */
function* longOpenTurn(
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

type Message = { id: string; role: "user" | "assistant"; parts: { type: "text"; text: string }[] };

function peerMessage(id: string, salt: number): Message {
  const make = (text: string): Message => ({ id, role: "assistant", parts: [{ type: "text", text }] });
  return make(sized(EVENT_BYTES, salt, (t) => JSON.stringify(make(t))));
}

export class BenchAgentsSessions extends DurableObject<BenchEnv> {
  readonly sessions = new Sessions();
  readonly lifecycle = Lifecycle.install(this).use(this.sessions);
  readonly session = this.sessions.session();
  #next = 0;

  empty(): null {
    return null;
  }

  async count(): Promise<number> {
    await this.lifecycle.start();
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cf_agents_session_messages").one().n;
  }

  /** Pre-fills to `n` messages through its own append (not timed). */
  async fill(n: number): Promise<number> {
    await this.lifecycle.start();
    for (let have = await this.count(); have < n; have++) await this.session.appendMessage(this.#message());
    return this.count();
  }

  #message(): Message {
    const i = this.#next++;
    return peerMessage(`m_${Date.now().toString(36)}_${i}`, i);
  }

  /** `k` awaited appends of one ~500-byte message each; returns the ids for `truncate`. */
  async append(k: number) {
    await this.lifecycle.start();
    const messages = Array.from({ length: k }, () => this.#message());
    const t0 = performance.now();
    for (const m of messages) await this.session.appendMessage(m);
    return { inObjectMs: performance.now() - t0, ids: messages.map((m) => m.id) };
  }

  /**
   * Deletes what a timed run appended. A delete drops Sessions' in-memory tail cache, and
   * re-deriving it is a scan (`ORDER BY seq DESC` over a table with no index on seq): prime
   * it here, untimed, so the next batch meets the peer in its steady state.
   */
  async truncate(ids: string[]): Promise<number> {
    await this.session.deleteMessages(ids);
    await this.session.getLatestLeaf();
    return this.count();
  }

  async storedBytes(): Promise<number> {
    await this.lifecycle.start();
    const row = this.ctx.storage.sql
      .exec<{ b: number }>("SELECT LENGTH(content) AS b FROM cf_agents_session_messages ORDER BY seq DESC LIMIT 1")
      .toArray()[0];
    return row?.b ?? 0;
  }
}

// ------------------------------------------------------------------------------------------
// (c) @cloudflare/ai-chat: AIChatAgent.persistMessages with the whole transcript, as it runs

export class BenchChat extends AIChatAgent<BenchEnv> {
  #next = 0;

  override async onChatMessage(): Promise<Response> {
    return new Response("bench: no model", { status: 500 });
  }

  async empty(): Promise<null> {
    return null;
  }

  async count(): Promise<number> {
    return this.messages.length;
  }

  /** Pre-fills to `n` messages in one persist (not timed). */
  async fill(n: number): Promise<number> {
    const more = Array.from({ length: Math.max(0, n - this.messages.length) }, () => this.#message());
    if (more.length > 0) await this.persistMessages([...this.messages, ...more]);
    return this.messages.length;
  }

  #message() {
    const i = this.#next++;
    return peerMessage(`c_${Date.now().toString(36)}_${i}`, i);
  }

  /** `k` turns' worth of persists: each call hands over the whole transcript plus one message. */
  async persistOne(k: number) {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) await this.persistMessages([...this.messages, this.#message()]);
    return { inObjectMs: performance.now() - t0, count: this.messages.length };
  }

  /** Back to `n` messages (drops the newest). */
  async truncate(n: number): Promise<number> {
    if (this.messages.length > n) await this.persistMessages(this.messages.slice(0, n), [], { _deleteStaleRows: true });
    return this.messages.length;
  }
}

// ------------------------------------------------------------------------------------------

const NAMESPACES = ["BENCH_LOG", "BENCH_SESSION", "BENCH_AGENTS", "BENCH_CHAT", "BENCH_BYTES"] as const;
type CallBody = { ns: (typeof NAMESPACES)[number]; name: string; method: string; args?: unknown[]; repeat?: number };

/**
 * `POST /call {ns, name, method, args, repeat?}` → the method's answer as JSON, and the
 * Worker's time around the awaited RPC(s) (`repeat` sequential calls); errors as 500.
 */
export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    if (url.pathname !== "/call" || request.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await request.json()) as CallBody;
    if (!NAMESPACES.includes(body.ns)) return new Response("unknown namespace", { status: 400 });
    const stub = env[body.ns].getByName(body.name) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const t0 = performance.now();
    try {
      let value: unknown;
      for (let i = 0; i < (body.repeat ?? 1); i++) value = await stub[body.method]!(...(body.args ?? []));
      return Response.json({ ok: true, value, workerMs: performance.now() - t0 });
    } catch (err) {
      return Response.json({ ok: false, error: String(err), workerMs: performance.now() - t0 }, { status: 500 });
    }
  },
} satisfies ExportedHandler<BenchEnv>;
