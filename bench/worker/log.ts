/** (a) Our EventStore against a raw INSERT of the same bytes, and where an append's time goes. */
import { DurableObject } from "cloudflare:workers";
import { canonical, chainDigest, type EventDraft, EventStore, GENESIS_DIGEST } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import type { BenchEnv } from "./index";
import { EVENT_BYTES, hex64, POOL, sized } from "./rows";

/** Drafts whose committed canonical body is EVENT_BYTES long (seq/at/sessionId included). */
export function appendDrafts(sessionId: string): EventDraft[] {
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
    const insert = (i: number) => sql.exec(INSERT_P, i + 1, bodies[i % POOL]!, hex64(i));
    const scratch = (indexed: boolean) => {
      sql.exec("DROP TABLE IF EXISTS p_events");
      sql.exec("CREATE TABLE p_events AS SELECT * FROM events WHERE 0");
      if (indexed) {
        sql.exec("CREATE INDEX p_call ON p_events (call_id) WHERE call_id IS NOT NULL");
        sql.exec("CREATE INDEX p_kind ON p_events (kind, seq) WHERE author <> 'model'");
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
      case "hashFixed":
        // What every chain digest pays before its bytes (createHash built a stream Transform).
        for (let i = 0; i < k; i++) sink += chainDigest("", "").length;
        break;
      case "inline": {
        // An append's own steps written out in one loop (event object, canonical JSON, chain
        // digest, the INSERT into the indexed table): the append minus this is the
        // store's own cost (head, checks, kind and call id, the returned array).
        scratch(true);
        let prev = GENESIS_DIGEST;
        for (let i = 0; i < k; i++) {
          const event = { ...this.#drafts[i % POOL]!, seq: i + 1, sessionId: id, at };
          const body = canonical(event);
          prev = chainDigest(prev, body);
          sql.exec(INSERT_P, i + 1, body, prev);
        }
        break;
      }
    }
    const inObjectMs = performance.now() - t0;
    if (phase.startsWith("insert") || phase === "inline") sql.exec("DROP TABLE IF EXISTS p_events");
    return { inObjectMs, sink };
  }
}

/** The INSERT our append runs for a model's text (`insertEvent`): 3 values bound, 4 literals. */
const INSERT_P =
  "INSERT INTO p_events (seq, author, visibility, kind, call_id, body, digest) VALUES (?, 'model', 'visible', 'text', NULL, ?, ?)";

const PROFILE_PHASES = [
  "empty",
  "canonical",
  "hash",
  "insertPlain",
  "insertIndexed",
  "insertIndexedTxn",
  "txnEmpty",
  "append",
  "hashFixed",
  "inline",
] as const;
type ProfilePhase = (typeof PROFILE_PHASES)[number];
