import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventCallId, eventKind } from "../../src/contract/event";
import {
  canonical,
  chainDigest,
  type EventDraft,
  EventStore,
  GENESIS_DIGEST,
  ModelViewReads,
  verifyRows,
} from "../../src/log";
import { buildModelMessages } from "../../src/projections";
import { applyMigrations, MIGRATIONS } from "../../src/storage";
import { offloadedLogDrafts } from "./bounded-log";
// The committed DDL: a new migration updates it in the same commit (copy the "Received" text of a failure).
import SCHEMA_SNAPSHOT from "./schema.snapshot.sql";

const HELLO_SHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

type Sql = DurableObjectState["storage"]["sql"];

/** The schema as SQLite records it, without the platform's own tables. */
function schemaOf(sql: Sql): string {
  return sql
    .exec<{ type: string; name: string; sql: string | null }>(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .toArray()
    .map((r) => `-- ${r.type} ${r.name}\n${r.sql ?? ""};`)
    .join("\n\n");
}

/** Empties a fresh object's database, so a test can lay it out at an earlier migration. */
function dropAll(sql: Sql) {
  const tables = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%'",
    )
    .toArray();
  for (const t of tables) sql.exec(`DROP TABLE "${t.name}"`);
}

/** Appends events as the store did at migration 0001: one events row each, nothing else. */
function appendAt0001(sql: Sql, drafts: EventDraft[]) {
  let prev = GENESIS_DIGEST;
  drafts.forEach((draft, i) => {
    const seq = i + 1;
    const body = canonical({ ...draft, seq, sessionId: "s1", at: "2026-12-01T00:00:00.000Z" });
    prev = chainDigest(prev, body);
    sql.exec(
      "INSERT INTO events (seq, turn_id, author, visibility, kind, call_id, body, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      seq,
      draft.turnId ?? null,
      draft.author,
      draft.modelVisibility,
      eventKind(draft),
      eventCallId(draft),
      body,
      prev,
    );
  });
}

function inFreshObject<T>(name: string, fn: (state: DurableObjectState) => T): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`${name}-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => fn(state));
}

describe("migrations", () => {
  it("the schema after every migration equals the committed snapshot", async () => {
    const schema = await inFreshObject("ddl", (state) => {
      // A fresh object has no tables until its seq 1 (docs/API.md §7.26): migrate it here.
      state.storage.transactionSync(() => applyMigrations(state.storage.sql));
      return schemaOf(state.storage.sql);
    });
    expect(`${schema}\n`).toBe(SCHEMA_SNAPSHOT);
  });

  it("upgrades a database at 0001 to the head with its data intact", async () => {
    await inFreshObject("upgrade", (state) => {
      const sql = state.storage.sql;
      const tx = <T>(fn: () => T): T => state.storage.transactionSync(fn);
      // The database as migration 0001 left it; every later migration then applies.
      const previous = MIGRATIONS.slice(0, 1);
      tx(() => {
        dropAll(sql);
        expect(applyMigrations(sql, previous)).toEqual(previous.map((m) => m.id));
        appendAt0001(sql, offloadedLogDrafts(5, 40_000));
        sql.exec(
          "INSERT INTO files (path, content, bytes, version, updated_at, seq) VALUES ('a.txt', 'hello', 5, 1, 't', 3)",
        );
        sql.exec("INSERT INTO meta (key, value) VALUES ('summary', '{\"x\":1}')");
        sql.exec("INSERT INTO blobs (sha256, bytes, media_type, chunks) VALUES (?, 5, 'text/plain', 1)", HELLO_SHA);
        sql.exec(
          "INSERT INTO blob_chunks (sha256, idx, data) VALUES (?, 0, ?)",
          HELLO_SHA,
          new TextEncoder().encode("hello"),
        );
      });
      const eventsBefore = sql.exec("SELECT * FROM events ORDER BY seq").toArray();
      const rawMessages = JSON.stringify(
        buildModelMessages({
          system: "s",
          summary: null,
          events: new EventStore(sql, "s1", tx)
            .readAfter(0, 1000)
            .filter((e) => e.modelVisibility === "visible" || e.actions?.modelRequest),
        }),
      );

      expect(tx(() => applyMigrations(sql))).toEqual(MIGRATIONS.slice(1).map((m) => m.id));
      expect(tx(() => applyMigrations(sql))).toEqual([]);

      // The log, the workspace and the caches are as they were, and the chain still verifies.
      expect(sql.exec("SELECT * FROM events ORDER BY seq").toArray()).toEqual(eventsBefore);
      expect(sql.exec("SELECT path, content FROM files").toArray()).toEqual([{ path: "a.txt", content: "hello" }]);
      expect(sql.exec("SELECT value FROM meta WHERE key = 'summary'").one().value).toBe('{"x":1}');
      const store = new EventStore(sql, "s1", tx);
      const rows = sql.exec<{ seq: number; body: string; digest: string }>("SELECT seq, body, digest FROM events");
      expect(verifyRows(rows, "s1")).toMatchObject({ ok: true, highWater: 21 });
      // The new model view is rebuilt from the old log on first read, and the model sees the same.
      const viewed = JSON.stringify(
        buildModelMessages({
          system: "s",
          summary: null,
          events: new ModelViewReads(sql, tx, () => store.head().highWater).contextEventsAfter(0),
        }),
      );
      expect(viewed).toBe(rawMessages);
      expect(sql.exec("SELECT COUNT(*) AS n FROM model_view").one().n).toBe(5);
      // A blob stored before verification was recorded is checked once, then marked.
      const blob = store.blobs.meta(HELLO_SHA)!;
      expect(blob).toMatchObject({ bytes: 5, verifiedAt: null });
      expect(store.blobs.verifiedOnce(blob)).toBe(true);
      expect(store.blobs.meta(HELLO_SHA)!.verifiedAt).not.toBeNull();
      // The indexes the reads use were rebuilt for the old rows (migrations/0007): a call's response
      // by its call id, the user's messages by kind (INDEXED BY: an error if the index did not fit).
      expect(store.readCallOutcomes("call2").map((e) => e.content?.type)).toEqual(["functionResponse"]);
      expect(store.readKindsAfter(["text"], 0, 100).length).toBeGreaterThan(0);
      // And appends after the upgrade keep it current.
      store.append(offloadedLogDrafts(1, 40_000).slice(1));
      expect(sql.exec("SELECT COUNT(*) AS n FROM model_view").one().n).toBe(6);
    });
  });
});
