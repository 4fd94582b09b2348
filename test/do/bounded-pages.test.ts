import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type EventDraft, EventStore, sha256Hex } from "../../src/log";
import { buildTranscript } from "../../src/projections";
import { SessionObject } from "../../src/session";
import { offloadedLogDrafts } from "./bounded-log";
import { api, createSession, TOKEN } from "./helpers";

/** Sessions here are created over HTTP with TOKEN: its principal owns them (docs/API.md §7.26). */
const OWNER = { principal: sha256Hex(TOKEN) };

/**
 * A session created over HTTP, `drafts` appended to its log, then `fn` on a fresh object over
 * the same storage (as after an eviction, so no cached head or summary is behind the log).
 */
async function withSessionLog<T>(
  drafts: EventDraft[],
  fn: (o: SessionObject, state: DurableObjectState, store: EventStore) => Promise<T>,
) {
  const s = await createSession({ title: "pages" });
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
  return runInDurableObject(stub, async (_o, state) => {
    const store = new EventStore(state.storage.sql, s.id, (f) => state.storage.transactionSync(f));
    for (let i = 0; i < drafts.length; i += 1000) store.append(drafts.slice(i, i + 1000));
    const fresh = new SessionObject(state, env);
    return fn(fresh, state, store);
  });
}

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: { code: string } }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

describe("bounded pages (docs/API.md §7.20)", () => {
  it("transcript pages hold at most `limit` items and join to the whole transcript", async () => {
    const drafts: EventDraft[] = [];
    for (let i = 0; i < 30; i++)
      drafts.push({
        author: "user",
        modelVisibility: "visible",
        turnId: "t",
        content: { type: "text", text: `m${i}` },
      });
    drafts.push(...offloadedLogDrafts(12, 100));
    await withSessionLog(drafts, async (o, _state, store) => {
      const whole = buildTranscript(store.readAfter(0, 10_000));
      expect(whole.length).toBe(30 + 1 + 12);
      const items: unknown[] = [];
      let after = 0;
      let pages = 0;
      for (;;) {
        const page = unwrap(await o.transcript(OWNER, { after, limit: 7 }));
        expect(page.items.length).toBeLessThanOrEqual(7);
        items.push(...page.items);
        pages++;
        if (page.next === undefined) break;
        expect(page.next).toBeGreaterThan(after);
        after = page.next;
      }
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(whole.length / 7));
      // Tool items cut from their responses by a page boundary still show their final state.
      expect(items).toEqual(whole);
      const first = unwrap(await o.transcript(OWNER, { after: 0, limit: 200 }));
      expect(first).toEqual({ items: whole });
      for (const limit of [0, 501, 1.5])
        expect(await o.transcript(OWNER, { after: 0, limit })).toMatchObject({
          ok: false,
          error: { code: "bad_request" },
        });
    });
  });

  it("files pages by path with a `next` cursor", async () => {
    await withSessionLog([], async (o, state) => {
      for (let i = 0; i < 25; i++)
        state.storage.sql.exec(
          "INSERT INTO files (path, content, bytes, version, updated_at, seq) VALUES (?, 'x', 1, 1, 't', 1)",
          `dir/f${String(i).padStart(2, "0")}.txt`,
        );
      const p1 = unwrap(await o.files(OWNER, { after: null, limit: 10 }));
      expect(p1.files.map((f) => f.path)).toEqual(Array.from({ length: 10 }, (_, i) => `dir/f0${i}.txt`));
      expect(p1.next).toBe("dir/f09.txt");
      const p2 = unwrap(await o.files(OWNER, { after: p1.next!, limit: 10 }));
      const p3 = unwrap(await o.files(OWNER, { after: p2.next!, limit: 10 }));
      expect(p3.files.map((f) => f.path)).toEqual(Array.from({ length: 5 }, (_, i) => `dir/f${20 + i}.txt`));
      expect(p3.next).toBeUndefined();
      expect(p1.files[0]).toEqual({ path: "dir/f00.txt", bytes: 1, updatedAt: "t" });
      expect(await o.files(OWNER, { after: null, limit: 1001 })).toMatchObject({
        ok: false,
        error: { code: "bad_request" },
      });
    });
  });

  it("verify works in chunks of at most 5,000 events, yielding between them, from the highWater it started at", async () => {
    const drafts: EventDraft[] = Array.from({ length: 12_000 }, (_, i) => ({
      author: "runtime" as const,
      modelVisibility: "hidden" as const,
      actions: { stateDelta: { note: i } },
    }));
    await withSessionLog(drafts, async (o, _state, store) => {
      const start = store.head().highWater;
      expect(start).toBe(12_001);
      let ticks = 0;
      let done = false;
      const ticker = (async () => {
        while (!done) {
          await new Promise((r) => setTimeout(r, 0));
          ticks++;
          // An append while verification is under way is not part of this verification.
          if (ticks === 1)
            store.append([{ author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { late: true } } }]);
        }
      })();
      const result = unwrap(await o.verify(OWNER));
      done = true;
      await ticker;
      expect(result).toMatchObject({ ok: true, highWater: start, problems: [] });
      expect(result.headDigest).toBe(store.digestAt(start));
      // 12,001 events are at least three chunks of ≤ 5,000: turns for the rest of the object between them.
      expect(ticks).toBeGreaterThanOrEqual(2);
    });
  });

  it("the HTTP routes pass the page arguments through", async () => {
    const s = await createSession({ title: "routes" });
    const r = await api(`/v1/sessions/${s.id}/transcript?limit=1`);
    expect(r.status).toBe(200);
    expect(r.body.items.length).toBeLessThanOrEqual(1);
    expect((await api(`/v1/sessions/${s.id}/files?limit=5`)).body).toEqual({ files: [] });
  });
});
