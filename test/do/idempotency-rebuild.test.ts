/**
 * docs/API.md §7.16 (docs/API.md#idempotency): the idempotency table is a cache of the log. When it
 * lost its rows, or is behind the log, it is folded again from the events' recorded keys before
 * it answers: a repeated key gets the first answer and appends nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settle } from "./drive";
import { api, createSession, highWaterOf } from "./helpers";

const post = (path: string, json: unknown) => api(path, { method: "POST", json });
const sqlOf = <T>(id: string, fn: (sql: SqlStorage) => T) =>
  runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromString(id)), (_o, state) => fn(state.storage.sql));

describe("the idempotency table is rebuilt from the log", () => {
  it("emptied: a repeated idempotencyKey and a repeated inbox correlationId get their first answers, nothing is appended", async () => {
    const s = await createSession();
    const first = await post(`/v1/sessions/${s.id}/messages`, { text: "hello", idempotencyKey: "key-1" });
    expect(first.status).toBe(202);
    await settle(s.id);
    const inbox = await post(`/v1/sessions/${s.id}/inbox`, { source: "github", text: "pr", correlationId: "7" });
    expect(inbox.status).toBe(202);
    await settle(s.id);
    const hw = await highWaterOf(s.id);

    const removed = await sqlOf(s.id, (sql) => {
      const n = sql.exec("SELECT COUNT(*) AS n FROM idempotency").one().n as number;
      sql.exec("DELETE FROM idempotency");
      return n;
    });
    expect(removed).toBeGreaterThan(0);

    const again = await post(`/v1/sessions/${s.id}/messages`, { text: "hello", idempotencyKey: "key-1" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const inboxAgain = await post(`/v1/sessions/${s.id}/inbox`, { source: "github", text: "pr", correlationId: "7" });
    expect(inboxAgain.status).toBe(202);
    expect(inboxAgain.body).toEqual(inbox.body);
    expect(await highWaterOf(s.id)).toBe(hw);
    // A new key still appends, right after the head (the turn it opens may append more at once).
    const fresh = await post(`/v1/sessions/${s.id}/messages`, { text: "new", idempotencyKey: "key-2" });
    expect(fresh.status).toBe(202);
    expect((fresh.body as { seq: number }).seq).toBe(hw + 1);
  });

  it("behind the log: events appended past the table are folded before a key is answered", async () => {
    const s = await createSession();
    const first = await post(`/v1/sessions/${s.id}/messages`, { text: "hello", idempotencyKey: "late-key" });
    await settle(s.id);
    const hw = await highWaterOf(s.id);
    // The table as it was before that message: its row missing, its marker before the event.
    await sqlOf(s.id, (sql) => {
      sql.exec("DELETE FROM idempotency");
      sql.exec("INSERT INTO idempotency (key, answer) VALUES ('#through', ?)", String(first.body.seq - 1));
    });
    const again = await post(`/v1/sessions/${s.id}/messages`, { text: "hello", idempotencyKey: "late-key" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await highWaterOf(s.id)).toBe(hw);
  });
});
