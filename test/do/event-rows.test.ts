/**
 * docs/design.md#3-storage: each event's row holds its index columns exactly, whichever way its
 * INSERT was written (the few-valued columns as literals in the statement text, or every value
 * bound), and the reads by kind and by call find it. The kind index holds every event but the
 * model's own (test/unit/log/kind-queries.test.ts: every query by kind can read it).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type EventDraft, EventStore, verifySuffix } from "../../src/log";
import { applyMigrations } from "../../src/storage";

type Columns = {
  seq: number;
  author: string;
  visibility: string;
  kind: string;
  call_id: string | null;
};

function inFreshObject<T>(fn: (store: EventStore, sql: SqlStorage) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`rows-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    const sql = state.storage.sql;
    state.storage.transactionSync(() => applyMigrations(sql));
    const store = new EventStore(sql, "s-rows", (fn) => state.storage.transactionSync(fn));
    return fn(store, sql);
  });
}

const columns = (sql: SqlStorage) =>
  sql.exec<Columns>("SELECT seq, author, visibility, kind, call_id FROM events ORDER BY seq").toArray();

const turn = { turnId: "t-1", runId: "r-1", invocationId: "i-1" };

describe("an event's row", () => {
  it("holds its author, visibility, kind, call id and turn, for each shape of event", async () => {
    const drafts: EventDraft[] = [
      { author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "hi" } },
      { author: "model", modelVisibility: "visible", ...turn, content: { type: "text", text: "hello" } },
      {
        author: "model",
        modelVisibility: "visible",
        ...turn,
        content: { type: "functionCall", callId: "c-1", name: "list_files", args: {} },
      },
      {
        author: "runtime",
        modelVisibility: "visible",
        ...turn,
        content: { type: "functionResponse", callId: "c-1", name: "list_files", status: "ok", response: [] },
      },
      // A kind that is not a plain name (a quote, a space) is bound, never spliced into the SQL.
      { author: "user", modelVisibility: "hidden", actions: { stateDelta: { "it's, a key": 1 } } },
      { author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { "x'); DROP TABLE events; --": 1 } } },
    ];
    const rows = await inFreshObject((store, sql) => {
      for (const d of drafts) store.append([d]);
      return { rows: columns(sql), byCall: store.readCallOutcomes("c-1").map((e) => e.seq) };
    });
    expect(rows.rows).toEqual([
      { seq: 1, author: "user", visibility: "visible", kind: "text", call_id: null },
      { seq: 2, author: "model", visibility: "visible", kind: "text", call_id: null },
      { seq: 3, author: "model", visibility: "visible", kind: "functionCall", call_id: "c-1" },
      { seq: 4, author: "runtime", visibility: "visible", kind: "functionResponse", call_id: "c-1" },
      { seq: 5, author: "user", visibility: "hidden", kind: "state:it's, a key", call_id: null },
      {
        seq: 6,
        author: "runtime",
        visibility: "hidden",
        kind: "state:x'); DROP TABLE events; --",
        call_id: null,
      },
    ]);
    expect(rows.byCall).toEqual([4]);
  });

  it("holds its kind past the bound on remembered statements (300 kinds, then a user message)", async () => {
    const out = await inFreshObject((store, sql) => {
      for (let i = 0; i < 300; i++)
        store.append([{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { [`k${i}`]: i } } }]);
      store.append([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "later" } }]);
      return {
        kinds: columns(sql).map((r) => r.kind),
        users: store.readKindsAfter(["text"], 0, 10).map((e) => e.seq),
        verify: verifySuffix(store, 1),
      };
    });
    expect(out.kinds).toEqual([...Array.from({ length: 300 }, (_, i) => `state:k${i}`), "text"]);
    expect(out.users).toEqual([301]);
    expect(out.verify).toEqual([]);
  });
});

/** The kind index's condition (migrations/0007), which a query by kind says beside its kind. */
const KIND_INDEXED = "author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse')";

describe("the kind index", () => {
  it("holds the events a query by kind can ask for, and none of the model's own", async () => {
    const out = await inFreshObject((store, sql) => {
      store.append([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "hi" } }]);
      store.append([{ author: "model", modelVisibility: "visible", ...turn, content: { type: "text", text: "yo" } }]);
      // A dispatch and a result: nothing asks for them by kind (migrations/0007).
      store.append([
        {
          author: "runtime",
          modelVisibility: "hidden",
          ...turn,
          actions: { toolDispatch: { callId: "c-1", tool: "list_files", effect: "read", idempotencyKey: "k" } },
        },
      ]);
      store.append([
        {
          author: "tool",
          modelVisibility: "visible",
          ...turn,
          content: { type: "functionResponse", callId: "c-1", name: "list_files", status: "ok", response: [] },
        },
      ]);
      store.append([
        { author: "runtime", modelVisibility: "hidden", ...turn, actions: { turnClose: { reason: "completed" } } },
      ]);
      const indexed = sql
        .exec<{ seq: number }>(`SELECT seq FROM events INDEXED BY events_kind WHERE ${KIND_INDEXED} ORDER BY seq`)
        .toArray()
        .map((r) => r.seq);
      const plan = sql
        .exec<{ detail: string }>(
          `EXPLAIN QUERY PLAN SELECT seq FROM events WHERE kind = 'turnClose' AND ${KIND_INDEXED} ORDER BY seq DESC LIMIT 1`,
        )
        .toArray()
        .map((r) => r.detail)
        .join("; ");
      return { indexed, plan };
    });
    expect(out.indexed).toEqual([1, 5]);
    expect(out.plan).toContain("USING INDEX events_kind");
  });
});
