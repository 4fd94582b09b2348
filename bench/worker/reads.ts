/**
 * Bounded reads (docs/design.md#3-storage): what one page or one delivery reads, counted in the
 * object's SQL (rows SQLite read, bytes handed to JS) and the size of the reply, for the
 * fork source at `throughSeq` and at the head, the open turn's suffix re-read on each alarm, a
 * page of runs, of triggers and of a record's entries; and a whole fork of a large session.
 */

import type { ForkSource } from "../../src/features/fork/commands";
import type { EventDraft, EventStore } from "../../src/log";
import { deliverChildrenWork } from "../../src/runtime/child-calls";
import type { ChildrenPort } from "../../src/runtime/children";
import type { SessionRuntime } from "../../src/runtime/session-runtime";
import type { SessionObject } from "../../src/session";
import type { Caller } from "../../src/session/admission";
import { ownerHash } from "../../src/session/admission";
import type { RowCount } from "./rows";
import { MODEL } from "./rows";

type Result<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
type Counted<T> = { value: T; rows: RowCount };

/** What a bench method lends these reads: the object, its namespace, a runtime over its storage, a counter. */
export type ReadHost = {
  id: string;
  session: SessionObject;
  caller: Caller;
  sessions: DurableObjectNamespace;
  runtime: (children?: ChildrenPort) => { runtime: SessionRuntime; store: EventStore };
  counted: <T>(fn: () => Promise<T> | T) => Promise<Counted<T>>;
};

export type PageRead = { rows: RowCount; replyBytes: number; items: number };

function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** Seeds `n` triggers or `n` entries of topic `notes` through the object's own commands. */
export async function seedWork(h: ReadHost, kind: "triggers" | "records", n: number, from = 0): Promise<number> {
  for (let i = from; i < from + n; i++) {
    if (kind === "triggers")
      unwrap(
        (await h.session.call(h.caller, "work", "createTrigger", {
          name: `t-${String(i).padStart(5, "0")}`,
          text: `check ${i}`,
          schedule: { everySeconds: 3_600 + i },
        })) as Result<unknown>,
      );
    else
      unwrap(
        (await h.session.call(h.caller, "records", "append", {
          topic: "notes",
          text: `note ${i} `.repeat(20),
        })) as Result<unknown>,
      );
  }
  return from + n;
}

/** One first page (`limit` items) of runs, triggers or the `notes` record, counted. */
export async function readPage(h: ReadHost, kind: "runs" | "triggers" | "records", limit: number): Promise<PageRead> {
  const c = await h.counted(async () => {
    if (kind === "runs") return (unwrap(await workPage(h, "runs", limit)) as { runs: unknown[] }).runs.length;
    if (kind === "triggers")
      return (unwrap(await workPage(h, "triggers", limit)) as { triggers: unknown[] }).triggers.length;
    return (unwrap(await recordPage(h, limit)) as { uncovered: unknown[] }).uncovered.length;
  });
  // The reply's size, read again uncounted.
  const reply = kind === "records" ? await recordPage(h, limit) : await workPage(h, kind, limit);
  return { rows: c.rows, replyBytes: JSON.stringify(reply).length, items: c.value };
}

/** A first page of runs or triggers, through the work feature's operations. */
function workPage(h: ReadHost, kind: "runs" | "triggers", limit: number) {
  const page = kind === "runs" ? { before: null, limit } : { after: null, limit };
  return h.session.call(h.caller, "work", kind, page) as Promise<Result<unknown>>;
}

/** A page of the `notes` record, through the records feature's operation. */
function recordPage(h: ReadHost, limit: number) {
  return h.session.call(h.caller, "records", "read", { topic: "notes", page: { limit } });
}

/** The fork source at `throughSeq` (≤ 0: the head), counted; its reply's size and archive. */
export async function forkSourceRead(h: ReadHost, throughSeq: number) {
  const head = h.runtime().store.head().highWater;
  const at = throughSeq > 0 ? throughSeq : head;
  const c = await h.counted(
    async () => unwrap(await h.session.call(h.caller, "fork", "source", { throughSeq: at })) as ForkSource,
  );
  return {
    throughSeq: at,
    head,
    rows: c.rows,
    replyBytes: JSON.stringify(c.value).length,
    archiveBlobs: c.value.archive.length,
    archiveBytes: c.value.archive.reduce((n, a) => n + a.bytes, 0),
  };
}

/**
 * The open turn's suffix as each alarm reads it: a 1 s trigger during a pending approval wakes the
 * turn every second and adds hidden events behind its last model request. `backlog` of them are
 * committed first; then the suffix is read, one more is committed, and it is read again.
 */
export async function suffixReads(h: ReadHost, backlog: number) {
  const { runtime } = h.runtime();
  const turn = runtime.summary?.openTurn;
  if (!turn) throw new Error("suffixReads: no open turn");
  const hidden = () => {
    const callId = `call_${crypto.randomUUID()}`;
    return {
      author: "runtime" as const,
      modelVisibility: "hidden" as const,
      turnId: turn.turnId,
      runId: turn.runId,
      actions: { toolDispatch: { callId, tool: "list_files", effect: "read" as const, idempotencyKey: `k:${callId}` } },
    };
  };
  for (let i = 0; i < backlog; i += 100) runtime.commit(Array.from({ length: Math.min(100, backlog - i) }, hidden));
  const first = await h.counted(() => runtime.turnSuffix().length);
  runtime.commit([hidden()]);
  const again = await h.counted(() => runtime.turnSuffix().length);
  return { suffixEvents: first.value, first: first.rows, again: again.rows };
}

/**
 * A whole fork at the head: the source read in this object, then `createFork` in a new object of
 * the same namespace, which copies the archived results from this one a page per reply.
 */
export async function wholeFork(h: ReadHost, child: string) {
  const t0 = Date.now();
  const source = await h.counted(async () => {
    const head = h.runtime().store.head().highWater;
    return unwrap(await h.session.call(h.caller, "fork", "source", { throughSeq: head })) as ForkSource;
  });
  const sourceMs = Date.now() - t0;
  const stub = h.sessions.getByName(child) as unknown as {
    createBy: (
      caller: Caller,
      f: "fork",
      c: "fork",
      i: { source: ForkSource },
    ) => Promise<Result<{ highWater: number }>>;
  };
  const forked = unwrap(await stub.createBy(h.caller, "fork", "fork", { source: source.value }));
  return {
    ms: Date.now() - t0,
    sourceMs,
    sourceRows: source.rows,
    sourceBytes: JSON.stringify(source.value).length,
    archiveBlobs: source.value.archive.length,
    archiveBytes: source.value.archive.reduce((n, a) => n + a.bytes, 0),
    forkEvents: forked.highWater,
  };
}

/**
 * A child whose goal turn of `goalEvents` events closed and whose parent does not acknowledge:
 * the outbox retries the report on every alarm. Rows read by one delivery attempt (the second,
 * as each retry pays it): the report's result is one event, however long the goal turn.
 */
export async function childDelivery(h: ReadHost, goalEvents: number) {
  const attempts: number[] = [];
  // The parent is unreachable: each attempt fails and the report stays in the outbox.
  const port: ChildrenPort = {
    childIdFor: (callId) => `child-of-${callId}`,
    spawn: async () => ({ ok: false, error: { code: "internal", message: "bench: no spawns" } }),
    report: async () => {
      attempts.push(Date.now());
      return { ok: false, error: { code: "not_found", message: "bench: the parent does not answer" } };
    },
    stop: async () => ({ ok: true, value: null }),
  };
  const { runtime } = h.runtime(port);
  if (!runtime.summary) {
    const id = h.id;
    runtime.create({
      id,
      parentId: "bench-parent",
      options: { title: "child" },
      model: MODEL,
      owner: ownerHash(id, h.caller.principal),
      spawnedBy: { sessionId: "bench-parent", callId: "call_spawn", depth: 1 },
    });
    const ids = { turnId: crypto.randomUUID(), runId: crypto.randomUUID() };
    runtime.commit([
      { author: "user", modelVisibility: "visible", ...ids, content: { type: "text", text: "the goal" } },
    ]);
    for (let i = 0; i < goalEvents; i += 500) {
      const drafts: EventDraft[] = Array.from({ length: Math.min(500, goalEvents - i) }, (_, j) => {
        const callId = `call_${i + j}`;
        return {
          author: "runtime",
          modelVisibility: "hidden",
          ...ids,
          actions: { toolDispatch: { callId, tool: "list_files", effect: "read", idempotencyKey: `k:${callId}` } },
        };
      });
      runtime.commit(drafts);
    }
    runtime.commit([
      { author: "model", modelVisibility: "visible", ...ids, content: { type: "text", text: "The result." } },
      { author: "runtime", modelVisibility: "hidden", ...ids, actions: { turnClose: { reason: "completed" } } },
    ]);
  }
  await deliverChildrenWork(runtime);
  const retry = await h.counted(() => deliverChildrenWork(runtime));
  return { goalEvents, attempts: attempts.length, rows: retry.rows, delivered: retry.value };
}
