/**
 * docs/design.md#3-storage: each event's row holds its index columns exactly, whichever way its
 * INSERT was written (the few-valued columns as literals in the statement text, or every value
 * bound), and the reads by kind and by call find it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type EventDraft, EventStore } from "../../src/log";
import { applyMigrations } from "../../src/storage";

type Columns = {
  seq: number;
  turn_id: string | null;
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
  sql.exec<Columns>("SELECT seq, turn_id, author, visibility, kind, call_id FROM events ORDER BY seq").toArray();

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
      return { rows: columns(sql), byCall: store.readByCall("c-1").map((e) => e.seq) };
    });
    expect(rows.rows).toEqual([
      { seq: 1, turn_id: "t-1", author: "user", visibility: "visible", kind: "text", call_id: null },
      { seq: 2, turn_id: "t-1", author: "model", visibility: "visible", kind: "text", call_id: null },
      { seq: 3, turn_id: "t-1", author: "model", visibility: "visible", kind: "functionCall", call_id: "c-1" },
      { seq: 4, turn_id: "t-1", author: "runtime", visibility: "visible", kind: "functionResponse", call_id: "c-1" },
      { seq: 5, turn_id: null, author: "user", visibility: "hidden", kind: "state:it's, a key", call_id: null },
      {
        seq: 6,
        turn_id: null,
        author: "runtime",
        visibility: "hidden",
        kind: "state:x'); DROP TABLE events; --",
        call_id: null,
      },
    ]);
    expect(rows.byCall).toEqual([3, 4]);
  });

  it("holds its kind past the bound on remembered statements (300 kinds, then a user message)", async () => {
    const out = await inFreshObject((store, sql) => {
      for (let i = 0; i < 300; i++)
        store.append([{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { [`k${i}`]: i } } }]);
      store.append([{ author: "user", modelVisibility: "visible", ...turn, content: { type: "text", text: "later" } }]);
      return {
        kinds: columns(sql).map((r) => r.kind),
        users: store.readKindsAfter(["text"], 0, 10).map((e) => e.seq),
        verify: store.verifySuffix(1),
      };
    });
    expect(out.kinds).toEqual([...Array.from({ length: 300 }, (_, i) => `state:k${i}`), "text"]);
    expect(out.users).toEqual([301]);
    expect(out.verify).toEqual([]);
  });
});
