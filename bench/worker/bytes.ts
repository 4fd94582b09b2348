/**
 * Bytes and memory figures (docs/design.md §6 "Bounded in bytes", issue 8 item 7), measured in the bench
 * Worker beside today's code paths (bench/worker/legacy.ts) on the same storage:
 * bytes that leave SQLite per context build and per read_archive page, the workerd peak for one
 * 10 MiB tool result, the longest stretch /verify and a WebSocket catch-up hold the object, and
 * the bytes of a /transcript and /files page.
 */

import { EventStore, ModelViewReads } from "../../src/log";
import type { ModelConfig } from "../../src/model";
import { buildModelMessages, buildTranscript } from "../../src/projections";
import { replaySocket, SessionObject, type SocketAttachment } from "../../src/session";
import { applyMigrations } from "../../src/storage";
import { BUILTIN_TOOLS, listFiles, serializeToolResponse, type ToolContext } from "../../src/tools";
import { countingSql, offloadedLogDrafts } from "../lib/bounded-log";
import {
  legacyAppendBody,
  legacyArchivePage,
  legacyContextEvents,
  legacyPump,
  legacyPut,
  legacyReadBody,
  legacyVerify,
} from "./legacy";

const MODEL: ModelConfig = { provider: "openai", name: "bench", contextWindow: 128_000, maxOutputTokens: 8_192 };
const TEN_MIB = 10 * 1024 * 1024;

/** Counts the bytes of every string and blob value that SQLite hands to JS through `exec`. */
function installByteCounter(sql: SqlStorage): { bytes: number } {
  const counter = { bytes: 0 };
  const exec = sql.exec;
  sql.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    const cursor = exec.call(this, query, ...bindings);
    const toArray = cursor.toArray.bind(cursor);
    cursor.toArray = () => {
      const rows = toArray();
      for (const r of rows)
        for (const v of Object.values(r)) {
          if (typeof v === "string") counter.bytes += v.length;
          else if (v instanceof ArrayBuffer) counter.bytes += v.byteLength;
        }
      return rows;
    };
    return cursor;
  } as SqlStorage["exec"];
  return counter;
}

/** A 10 MiB body in 64 KiB network chunks, unique per salt, generated as it is read. */
function tenMiBResponse(salt: string): Response {
  const chunk = new TextEncoder().encode("0123456789abcdef".repeat(4096));
  let sent = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= TEN_MIB) return c.close();
        const out = chunk.slice();
        if (sent === 0) out.set(new TextEncoder().encode(salt.padEnd(64, " ")));
        c.enqueue(out);
        sent += out.byteLength;
      },
    }),
    { headers: { "content-length": String(TEN_MIB) } },
  );
}

/** The ticker that measures the longest gap between two macrotask turns while `work` runs. */
async function longestStretch(work: () => Promise<unknown>): Promise<{ maxGapMs: number; turns: number }> {
  let done = false;
  let maxGapMs = 0;
  let turns = 0;
  let last = performance.now();
  const ticker = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, 0));
      const now = performance.now();
      maxGapMs = Math.max(maxGapMs, now - last);
      last = now;
      turns++;
    }
  })();
  last = performance.now();
  await work();
  maxGapMs = Math.max(maxGapMs, performance.now() - last);
  done = true;
  await ticker;
  return { maxGapMs, turns };
}

/** The principal the bench creates its sessions for (the object admits only the owner, docs/API.md §7.26). */
const BENCH_CALLER = { principal: "bench" };

export class BenchBytes extends SessionObject {
  readonly #bytes: { bytes: number };

  constructor(ctx: DurableObjectState, env: Env) {
    const counter = installByteCounter(ctx.storage.sql);
    super(ctx, env);
    this.#bytes = counter;
  }

  override async alarm(): Promise<void> {}

  benchAbort(): void {
    this.ctx.abort("bench: fresh instance");
  }

  #store(sql: SqlStorage | ReturnType<typeof countingSql>["sql"] = this.ctx.storage.sql) {
    // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); the bench writes around it.
    this.ctx.storage.transactionSync(() => applyMigrations(this.ctx.storage.sql));
    return new EventStore(sql, this.ctx.id.toString(), (f) => this.ctx.storage.transactionSync(f));
  }

  /** Fills this object with `results` offloaded results of `resultBytes` (call on a fresh name). */
  contextFill(results: number, resultBytes: number) {
    const store = this.#store();
    const drafts = offloadedLogDrafts(results, resultBytes);
    for (let i = 0; i < drafts.length; i += 40) store.append(drafts.slice(i, i + 40));
    return { events: store.head().highWater };
  }

  /** Bytes out of SQLite for one context read: through the model view, and today's raw read. */
  contextBytes() {
    const counting = countingSql(this.ctx.storage.sql);
    const store = this.#store(counting.sql);
    const tx = <T>(f: () => T): T => this.ctx.storage.transactionSync(f);
    const view = new ModelViewReads(counting.sql, tx, () => store.head().highWater);
    view.contextEventsAfter(0); // a first read may rebuild the view; measure the steady state
    counting.reset();
    const events = view.contextEventsAfter(0);
    const ours = counting.bytes();
    const messages = JSON.stringify(buildModelMessages({ system: "s", summary: null, events }));
    // Today's read, counted row by row (holding 117 MiB of bodies at once would not fit the isolate).
    let today = 0;
    const cursor = this.ctx.storage.sql.exec<{ body: string; digest: string }>(
      "SELECT seq, body, digest FROM events WHERE seq > 0 AND (visibility = 'visible' OR kind = 'modelRequest') ORDER BY seq",
    );
    for (const row of cursor) today += row.body.length + row.digest.length + 8;
    // Same messages from today's events (only where they fit in memory).
    const same =
      today < 64 * 1024 * 1024
        ? JSON.stringify(
            buildModelMessages({ system: "s", summary: null, events: legacyContextEvents(this.ctx.storage.sql, 0) }),
          ) === messages
        : null;
    return { ours, today, same, messageBytes: messages.length };
  }

  /** Bytes out of SQLite for read_archive pages of a 10 MiB archive: now and today. */
  async archiveBytes() {
    const counting = countingSql(this.ctx.storage.sql);
    const store = this.#store(counting.sql);
    const meta = store.blobs.put(`${crypto.randomUUID()} ${"0123456789abcdef".repeat(TEN_MIB / 16)}`);
    const ctx = { blobs: store.blobs, sql: counting.sql } as unknown as ToolContext;
    const offsets = [0, 3 * 1024 * 1024 + 17, TEN_MIB - 5000];
    counting.reset();
    for (const offset of offsets)
      await BUILTIN_TOOLS.read_archive!.run(
        { ref: `archive://${meta.sha256}`, mode: "read", offset, limit: 16384 },
        ctx,
      );
    const ours = counting.bytes() / offsets.length;
    counting.reset();
    for (const offset of offsets) legacyArchivePage(counting.sql as SqlStorage, meta.sha256, offset, 16384);
    const today = counting.bytes() / offsets.length;
    return { ours, today };
  }

  /**
   * One 10 MiB http_fetch result from the network to the log, as the runtime commits it
   * (serialize, measure, archive, append). `mode` "today" runs today's copies (bench/worker/legacy.ts).
   */
  async tenMiBResult(mode: "ours" | "today", stop = 9) {
    const salt = crypto.randomUUID();
    const sql = this.ctx.storage.sql;
    const store = this.#store();
    const t0 = performance.now();
    let response: { body: string } & Record<string, unknown>;
    if (mode === "ours") {
      const ctx = {
        signal: new AbortController().signal,
        httpAllowedHosts: ["big.test"],
        fetch: async () => tenMiBResponse(salt),
      } as unknown as ToolContext;
      const r = await BUILTIN_TOOLS.http_fetch!.run({ url: "https://big.test/x", method: "GET" }, ctx);
      response = r.response as typeof response;
    } else {
      const body = await legacyReadBody(tenMiBResponse(salt), TEN_MIB);
      response = { status: 200, headers: {}, body, truncated: false, url: "https://big.test/x" };
    }
    if (stop <= 1) return { bytes: 0, ms: performance.now() - t0, bodyBytes: response.body.length };
    // SessionRuntime.#commitOutcome (src/runtime, unchanged here): serialize, measure, archive.
    const text = serializeToolResponse(response);
    const bytes = new TextEncoder().encode(text).byteLength;
    if (stop <= 2) return { bytes: 0, ms: performance.now() - t0, bodyBytes: response.body.length };
    const meta = mode === "ours" ? store.blobs.put(text, "application/json") : legacyPut(sql, text, "application/json");
    if (stop <= 3) return { bytes: 0, ms: performance.now() - t0, bodyBytes: response.body.length };
    const draft = {
      author: "tool" as const,
      modelVisibility: "visible" as const,
      content: { type: "functionResponse" as const, callId: salt, name: "http_fetch", status: "ok" as const, response },
      actions: { stateDelta: { offload: { sha256: meta.sha256, bytes: meta.bytes, preview: "" } } },
    };
    if (mode === "ours") store.append([draft]);
    else legacyAppendBody(sql, { ...draft, seq: 1, sessionId: "s", at: new Date().toISOString() });
    return { bytes, ms: performance.now() - t0, bodyBytes: response.body.length };
  }

  /** A session of `n` small visible events (for verify, replay and transcript). Then abort. */
  async logFill(n: number) {
    if (this.#store().head().highWater === 0)
      await this.create(BENCH_CALLER, { options: { title: "bench" }, model: MODEL, parentId: null });
    const store = this.#store();
    while (store.head().highWater < n) {
      const left = Math.min(2_000, n - store.head().highWater);
      store.append(
        Array.from({ length: left }, (_, i) => ({
          author: "user" as const,
          turnId: "t",
          modelVisibility: "visible" as const,
          content: { type: "text" as const, text: `message ${i} `.padEnd(300, "x") },
        })),
      );
    }
    return { events: store.head().highWater };
  }

  /** The longest stretch /verify holds the object, now (chunked) and today (one pass). */
  async verifyStretch() {
    const t0 = performance.now();
    const ours = await longestStretch(() => this.verify(BENCH_CALLER));
    const oursTotalMs = performance.now() - t0;
    const t1 = performance.now();
    const result = legacyVerify(this.#store().scanRows(), this.ctx.id.toString());
    const todayMs = performance.now() - t1;
    return { oursMaxGapMs: ours.maxGapMs, oursTurns: ours.turns, oursTotalMs, todayMs, events: result.highWater };
  }

  /** The longest stretch a WebSocket catch-up from after=0 holds the object, now and today. */
  async replayStretch() {
    const store = this.#store();
    let frames = 0;
    let attachment: SocketAttachment = { principal: "p", cursor: 0 };
    const ws = {
      send: () => frames++,
      serializeAttachment: (a: SocketAttachment) => (attachment = a),
      deserializeAttachment: () => attachment,
    } as unknown as WebSocket;
    const ours = await longestStretch(() => replaySocket(ws, store));
    const oursFrames = frames;
    frames = 0;
    const t1 = performance.now();
    legacyPump({ send: () => frames++ }, (a, l) => store.readSerializedAfter(a, l), 0);
    return { oursMaxGapMs: ours.maxGapMs, oursTurns: ours.turns, todayMs: performance.now() - t1, oursFrames, frames };
  }

  /** Bytes out of SQLite for one transcript page (200 items) and one /files page (1000), now and today. */
  async pageBytes() {
    this.#bytes.bytes = 0;
    const page = await this.transcript(BENCH_CALLER, { after: 0, limit: 200 });
    const oursTranscript = this.#bytes.bytes;
    const head = this.#store().head().highWater;
    this.#bytes.bytes = 0;
    const items = buildTranscript(this.#store().readFrom(Math.max(1, head - 4_999))).length;
    const todayTranscript = this.#bytes.bytes;
    const sql = this.ctx.storage.sql;
    if (sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM files").one().n === 0)
      for (let i = 0; i < 20_000; i++)
        sql.exec(
          "INSERT INTO files (path, content, bytes, version, updated_at, seq) VALUES (?, 'x', 1, 1, ?, 1)",
          `src/module-${String(i).padStart(5, "0")}/index.ts`,
          new Date().toISOString(),
        );
    this.#bytes.bytes = 0;
    await this.files(BENCH_CALLER, { after: null, limit: 1000 });
    const oursFiles = this.#bytes.bytes;
    this.#bytes.bytes = 0;
    listFiles(sql);
    const todayFiles = this.#bytes.bytes;
    return {
      oursTranscript,
      todayTranscript,
      items: page.ok ? page.value.items.length : -1,
      todayItems: items,
      oursFiles,
      todayFiles,
    };
  }
}
