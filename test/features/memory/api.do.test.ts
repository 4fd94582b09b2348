import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, expectError, OTHER_TOKEN, TOKEN } from "../../do/helpers";
import { allEntries, clearMemory, memoryStub, onMemorySql, postMemory } from "./support";

afterEach(clearMemory);

describe("/v1/memory", () => {
  it("stores an entry (201), lists it newest first, searches it best first, filters by topic, pages", async () => {
    const a = await postMemory({ text: "Our fiscal year starts in April", topic: "finance" });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      text: "Our fiscal year starts in April",
      topic: "finance",
      pinned: false,
      source: { api: true },
    });
    expect(a.body.id).toMatch(/^mem_[0-9a-f]{32}$/);
    expect(Date.parse(a.body.createdAt)).not.toBeNaN();
    const b = await postMemory({ text: "The fiscal committee meets on Fridays; the year review is in March" });
    const c = await postMemory({ text: "Deploys happen on Tuesdays", pinned: true });
    expect(c.body.pinned).toBe(true);

    const all = await api("/v1/memory");
    expect(all.status).toBe(200);
    const ids = all.body.entries.map((e: any) => e.id);
    expect(ids.indexOf(c.body.id)).toBeLessThan(ids.indexOf(b.body.id));
    expect(ids.indexOf(b.body.id)).toBeLessThan(ids.indexOf(a.body.id));

    // Both mention "fiscal"; only the first has "fiscal", "year" and "april": it ranks first.
    const found = await api(`/v1/memory?q=${encodeURIComponent("fiscal year april")}`);
    expect(found.status).toBe(200);
    expect(found.body.entries.map((e: any) => e.id).slice(0, 2)).toEqual([a.body.id, b.body.id]);
    expect(found.body.entries.some((e: any) => e.id === c.body.id)).toBe(false);

    const byTopic = await api("/v1/memory?q=fiscal&topic=finance");
    expect(byTopic.body.entries.map((e: any) => e.id)).toEqual([a.body.id]);

    const page1 = await api("/v1/memory?limit=2");
    expect(page1.body.entries).toHaveLength(2);
    expect(typeof page1.body.next).toBe("string");
    const page2 = await api(`/v1/memory?limit=2&before=${page1.body.next}`);
    const seen = [...page1.body.entries, ...page2.body.entries].map((e: any) => e.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(a.body.id);

    const q1 = await api("/v1/memory?q=fiscal&limit=1");
    expect(q1.body.entries.map((e: any) => e.id)).toEqual([a.body.id]);
    const q2 = await api(`/v1/memory?q=fiscal&limit=1&before=${q1.body.next}`);
    expect(q2.body.entries.map((e: any) => e.id)).toEqual([b.body.id]);
  });

  it("a search's equally ranked entries come newest first, the same across pages", async () => {
    const posted = [];
    for (let i = 0; i < 3; i++) posted.push((await postMemory({ text: "Quarterly tiebreak review notes" })).body.id);
    const newestFirst = [...posted].reverse();
    const whole = await api("/v1/memory?q=tiebreak");
    expect(whole.body.entries.map((e: any) => e.id)).toEqual(newestFirst);
    const paged: string[] = [];
    let before: string | null = null;
    do {
      const page: any = await api(`/v1/memory?q=tiebreak&limit=1${before ? `&before=${before}` : ""}`);
      paged.push(...page.body.entries.map((e: any) => e.id));
      before = page.body.next;
    } while (before);
    expect(paged).toEqual(newestFirst);
  });

  it("a POST with an idempotency key stores once and answers the same entry", async () => {
    const before = (await allEntries()).length;
    const first = await postMemory({ text: "Invoices go out on the 3rd", idempotencyKey: "inv-3rd" });
    const again = await postMemory({ text: "Invoices go out on the 3rd", idempotencyKey: "inv-3rd" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await allEntries()).length).toBe(before + 1);
  });

  it("PATCH pins and unpins (200); DELETE forgets (204), and the text leaves the store and its index", async () => {
    const e = (await postMemory({ text: "The zanzibarquux project ends in June" })).body;
    const pinned = await api(`/v1/memory/${e.id}`, { method: "PATCH", json: { pinned: true } });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ id: e.id, pinned: true });
    const unpinned = await api(`/v1/memory/${e.id}`, { method: "PATCH", json: { pinned: false } });
    expect(unpinned.body.pinned).toBe(false);
    expect((await api("/v1/memory?q=zanzibarquux")).body.entries).toHaveLength(1);

    const del = await api(`/v1/memory/${e.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await api("/v1/memory?q=zanzibarquux")).body.entries).toHaveLength(0);
    expectError(await api(`/v1/memory/${e.id}`, { method: "DELETE" }), 404, "not_found");
    expectError(await api(`/v1/memory/${e.id}`, { method: "PATCH", json: { pinned: true } }), 404, "not_found");
    const left = await onMemorySql(TOKEN, (sql) => {
      const tables = sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((t) => t.name);
      let hits = 0;
      for (const t of tables) {
        const cols = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${t}')`).toArray();
        for (const c of cols)
          hits += sql
            .exec<{ n: number }>(
              `SELECT count(*) AS n FROM "${t}" WHERE instr(CAST("${c.name}" AS BLOB), CAST(? AS BLOB)) > 0`,
              "zanzibarquux",
            )
            .one().n;
      }
      sql.exec("CREATE VIRTUAL TABLE probe_vocab USING fts5vocab(entries_fts, 'row')");
      const terms = sql.exec("SELECT term FROM probe_vocab WHERE term = 'zanzibarquux'").toArray().length;
      sql.exec("DROP TABLE probe_vocab");
      return { hits, terms };
    });
    expect(left).toEqual({ hits: 0, terms: 0 });
  });

  it("redacts the deployment's secrets before storing, and measures the 2 KiB after redaction", async () => {
    const secret = `sk-live-${"x".repeat(3000)}`;
    const r = await runWithSecret(secret, async (o) => {
      const stored = await o.add({
        id: "mem_0123456789abcdef0123456789abcdef",
        text: `the key is ${secret}`,
        pinned: false,
        source: { api: true },
        createdAt: new Date().toISOString(),
      });
      const over = await o.add({
        id: "mem_fedcba9876543210fedcba9876543210",
        text: `${"y".repeat(2040)} ${secret}`,
        pinned: false,
        source: { api: true },
        createdAt: new Date().toISOString(),
      });
      return { stored, over };
    });
    expect(r.stored).toMatchObject({ ok: true, value: { entry: { text: "the key is [secret:MEMO_KEY]" } } });
    expect(r.over).toMatchObject({ ok: false, error: { code: "bad_request" } });
    expect((await allEntries()).some((e) => e.id === "mem_fedcba9876543210fedcba9876543210")).toBe(false);
  });

  it("refuses bad input with 400 and writes nothing", async () => {
    const before = (await allEntries()).length;
    const bodies: unknown[] = [
      {},
      { text: "" },
      { text: "   " },
      { text: 5 },
      { text: "x".repeat(2049) },
      { text: "ok", topic: "" },
      { text: "ok", topic: "has space" },
      { text: "ok", pinned: "yes" },
      { text: "ok", idempotencyKey: "" },
      { text: "ok", extra: 1 },
      [],
      null,
    ];
    for (const json of bodies) expectError(await postMemory(json), 400, "bad_request");
    expectError(await api("/v1/memory", { method: "POST", body: "{not json" }), 400, "bad_request");
    for (const q of ["limit=0", "limit=101", "limit=x", "before=zzz", "topic=a%20b", "nope=1"])
      expectError(await api(`/v1/memory?${q}`), 400, "bad_request");
    const e = (await postMemory({ text: "a fact to patch" })).body;
    for (const json of [{}, { pinned: "true" }, { pinned: true, text: "x" }])
      expectError(await api(`/v1/memory/${e.id}`, { method: "PATCH", json }), 400, "bad_request");
    expectError(await api(`/v1/memory/${e.id}`, { method: "DELETE", json: { x: 1 } }), 400, "bad_request");
    expect((await allEntries()).length).toBe(before + 1);
    expect((await allEntries()).find((x) => x.id === e.id)?.pinned).toBe(false);
    // A malformed id is unknown: 404 before the body is read.
    expectError(await api("/v1/memory/nope", { method: "PATCH", json: { pinned: "bad" } }), 404, "not_found");
    expectError(await api("/v1/memory", { method: "PUT", json: {} }), 405, "method_not_allowed");
    expectError(await api("/v1/memory", { token: null }), 401, "unauthorized");
  });

  it("keeps principals apart: B lists, searches, pins and deletes nothing of A's", async () => {
    const a = (await postMemory({ text: "the quokkaplan launch codename is Bluebird", pinned: true })).body;
    const bAll = await allEntries(OTHER_TOKEN);
    expect(bAll.some((e) => e.id === a.id)).toBe(false);
    expect((await api("/v1/memory?q=quokkaplan", { token: OTHER_TOKEN })).body.entries).toEqual([]);
    expectError(
      await api(`/v1/memory/${a.id}`, { method: "PATCH", json: { pinned: false }, token: OTHER_TOKEN }),
      404,
      "not_found",
    );
    expectError(await api(`/v1/memory/${a.id}`, { method: "DELETE", token: OTHER_TOKEN }), 404, "not_found");
    // The same idempotency key is B's own: another entry in B's store, A's unchanged.
    const ka = await postMemory({ text: "A's", idempotencyKey: "shared-key" });
    const kb = await postMemory({ text: "B's", idempotencyKey: "shared-key" }, OTHER_TOKEN);
    expect(kb.status).toBe(201);
    expect(kb.body.text).toBe("B's");
    expect((await allEntries()).find((e) => e.id === ka.body.id)?.text).toBe("A's");
    expect((await allEntries()).find((e) => e.id === a.id)?.pinned).toBe(true);
    expect(memoryStub(TOKEN).id.toString()).not.toBe(memoryStub(OTHER_TOKEN).id.toString());
  });
});

/** Runs `fn` on A's memory object with `MEMO_KEY` as a secret the deployment uses. */
async function runWithSecret<T>(secret: string, fn: (o: any) => Promise<T>): Promise<T> {
  const run = runInDurableObject as unknown as (stub: unknown, fn: (o: any) => Promise<T>) => Promise<T>;
  return run(memoryStub(TOKEN), async (o) => {
    const env = o.env;
    o.env = { ...env, HTTP_TOOL_SECRETS: "MEMO_KEY=example.com", MEMO_KEY: secret };
    try {
      return await fn(o);
    } finally {
      o.env = env;
    }
  });
}
