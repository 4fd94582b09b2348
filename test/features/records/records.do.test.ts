/**
 * docs/API.md §6 work records and §7.33: immutable revisions, a stale write 409 that appends
 * nothing, entries with refs up to highWater, what a summary does not cover, the three tools
 * through a scripted model, and the route's bad input.
 */
import { describe, expect, it } from "vitest";
import { listRecords, readRecord, rebuildRecordCache } from "../../../src/features/records/cache";
import type { ModelConfig, ModelRequest } from "../../../src/model/types";
import { lastResults, type Step, scriptedProvider, withSession } from "../../do/context-harness";
import { allEvents, api, createSession, expectError, highWaterOf, OTHER_TOKEN } from "../../do/helpers";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };

describe("work records over HTTP", () => {
  it("keeps numbered revisions; a stale expectedRevision is 409 and appends nothing", async () => {
    const s = await createSession();
    const url = `/v1/sessions/${s.id}/records/plan`;
    expect((await api(url)).body).toEqual({ topic: "plan", revision: 0, content: "", coversEntry: 0, uncovered: [] });
    expect(await highWaterOf(s.id)).toBe(1);

    const first = await api(url, { method: "PUT", json: { content: "v1", expectedRevision: 0 } });
    expect(first).toMatchObject({ status: 200, body: { topic: "plan", revision: 1 } });
    const hw = await highWaterOf(s.id);
    expectError(await api(url, { method: "PUT", json: { content: "lost", expectedRevision: 0 } }), 409, "conflict");
    expect(await highWaterOf(s.id)).toBe(hw);
    const second = await api(url, { method: "PUT", json: { content: "v2", expectedRevision: 1 } });
    expect(second.body).toEqual({ topic: "plan", revision: 2 });
    expect((await api(url)).body).toMatchObject({ revision: 2, content: "v2" });

    // Each revision is an event of its own and stays in the log as written.
    const revisions = (await allEvents(s.id)).flatMap((e) =>
      e.actions?.stateDelta?.recordRevision ? [e.actions.stateDelta.recordRevision] : [],
    );
    expect(revisions).toEqual([
      { topic: "plan", revision: 1, content: "v1", coversEntry: 0 },
      { topic: "plan", revision: 2, content: "v2", coversEntry: 0 },
    ]);
    const items = (await api(`/v1/sessions/${s.id}/transcript`)).body.items;
    expect(items.map((i: { kind: string; revision?: number }) => [i.kind, i.revision])).toEqual([
      ["record", 1],
      ["record", 2],
    ]);
  });

  it("GET returns the entries the summary does not cover; refs past highWater are 400", async () => {
    const s = await createSession();
    const base = `/v1/sessions/${s.id}/records/findings`;
    const e1 = await api(`${base}/entries`, { method: "POST", json: { text: "first", refs: [1] } });
    expect(e1.status).toBe(201);
    expect(e1.body).toMatchObject({ topic: "findings", entry: { id: 1, text: "first", refs: [1] } });
    const hw = await highWaterOf(s.id);
    expectError(
      await api(`${base}/entries`, { method: "POST", json: { text: "future", refs: [hw + 1] } }),
      400,
      "bad_request",
    );
    expect(await highWaterOf(s.id)).toBe(hw);
    await api(`${base}/entries`, { method: "POST", json: { text: "second", refs: [hw, 1] } });
    await api(`${base}/entries`, { method: "POST", json: { text: "third" } });

    const put = await api(base, { method: "PUT", json: { content: "first two", expectedRevision: 0, coversEntry: 2 } });
    expect(put.body).toEqual({ topic: "findings", revision: 1 });
    const got = (await api(base)).body;
    expect(got).toMatchObject({ topic: "findings", revision: 1, content: "first two", coversEntry: 2 });
    expect(got.uncovered.map((e: { id: number; text: string }) => [e.id, e.text])).toEqual([[3, "third"]]);
    // A later revision without coversEntry keeps what the previous one covered.
    await api(base, { method: "PUT", json: { content: "still two", expectedRevision: 1 } });
    expect((await api(base)).body).toMatchObject({ revision: 2, coversEntry: 2 });
    // Covering an entry that does not exist is 400, and appends nothing.
    const before = await highWaterOf(s.id);
    expectError(
      await api(base, { method: "PUT", json: { content: "x", expectedRevision: 2, coversEntry: 4 } }),
      400,
      "bad_request",
    );
    expect(await highWaterOf(s.id)).toBe(before);

    const list = await api(`/v1/sessions/${s.id}/records`);
    expect(list.body).toEqual({ topics: [{ topic: "findings", revision: 2, coversEntry: 2, entries: 3 }] });
  });

  it("bad input: malformed topics 404 before the body, schema violations 400, someone else's session 404", async () => {
    const s = await createSession();
    const hw = await highWaterOf(s.id);
    for (const topic of ["..", "-x", "a%20b", "x".repeat(65)]) {
      expectError(await api(`/v1/sessions/${s.id}/records/${topic}`), 404, "not_found");
      expectError(
        await api(`/v1/sessions/${s.id}/records/${topic}`, { method: "PUT", json: { nonsense: true } }),
        404,
        "not_found",
      );
    }
    const url = `/v1/sessions/${s.id}/records/t`;
    for (const body of [
      {},
      { content: "x" },
      { content: "x", expectedRevision: -1 },
      { content: "x", expectedRevision: 0, extra: 1 },
      { content: 1, expectedRevision: 0 },
      null,
    ])
      expectError(await api(url, { method: "PUT", json: body }), 400, "bad_request");
    for (const body of [{}, { text: "" }, { text: "x", refs: [0] }, { text: "x", refs: ["1"] }, { text: "x", more: 1 }])
      expectError(await api(`${url}/entries`, { method: "POST", json: body }), 400, "bad_request");
    expectError(await api(url, { method: "DELETE" }), 405, "method_not_allowed");
    expect(await highWaterOf(s.id)).toBe(hw);

    for (const [path, init] of [
      [`/v1/sessions/${s.id}/records`, {}],
      [url, {}],
      [url, { method: "PUT", json: { content: "x", expectedRevision: 0 } }],
      [`${url}/entries`, { method: "POST", json: { text: "x" } }],
    ] as const)
      expectError(await api(path, { ...init, token: OTHER_TOKEN }), 404, "not_found");
    expect(await highWaterOf(s.id)).toBe(hw);
  });
});

describe("the record tools", () => {
  it("write, append, read and a stale write, through the model; the cache rebuilds from the log", async () => {
    const steps: Step[] = [
      { kind: "call", name: "write_record", args: { topic: "notes", content: "summary one", expectedRevision: 0 } },
      { kind: "call", name: "append_record_entry", args: { topic: "notes", text: "found X", refs: [2] } },
      { kind: "call", name: "append_record_entry", args: { topic: "notes", text: "bad ref", refs: [999] } },
      { kind: "call", name: "read_record", args: { topic: "notes" } },
      { kind: "call", name: "write_record", args: { topic: "notes", content: "stale", expectedRevision: 0 } },
      {
        kind: "call",
        name: "write_record",
        args: { topic: "notes", content: "summary two", expectedRevision: 1, coversEntry: 1 },
      },
      { kind: "answer", text: "recorded" },
    ];
    const seen: ModelRequest[] = [];
    const provider = scriptedProvider({
      next: (r, n) => {
        seen.push(r);
        return steps[n]!;
      },
    });
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("keep notes");
      const results = seen.slice(1).map((r) => lastResults(r)[0]!);
      expect(results.map((r) => [r.name, r.status])).toEqual([
        ["write_record", "ok"],
        ["append_record_entry", "ok"],
        ["append_record_entry", "error"],
        ["read_record", "ok"],
        ["write_record", "error"],
        ["write_record", "ok"],
      ]);
      expect(results[0]!.output).toEqual({ topic: "notes", revision: 1 });
      expect(results[1]!.output).toEqual({ topic: "notes", entry: 1 });
      expect(results[2]!.output).toMatchObject({ code: "bad_request" });
      expect(results[3]!.output).toMatchObject({
        topic: "notes",
        revision: 1,
        content: "summary one",
        coversEntry: 0,
        uncovered: [{ id: 1, text: "found X", refs: [2] }],
      });
      expect(results[4]!.output).toMatchObject({ code: "stale_revision" });

      const sql = h.state.storage.sql;
      const view = readRecord(sql, "notes");
      expect(view).toMatchObject({ revision: 2, content: "summary two", coversEntry: 1, uncovered: [] });
      // Every revision and entry is on an ok T2 event of the log; the table is only a cache of them.
      const facts = h.events().flatMap((e) => {
        const d = e.actions?.stateDelta;
        return d?.recordRevision || d?.recordEntry ? [e.content?.type] : [];
      });
      expect(facts).toEqual(["functionResponse", "functionResponse", "functionResponse"]);
      const listed = listRecords(sql);
      sql.exec("UPDATE record_revisions SET content = 'TAMPERED'");
      rebuildRecordCache(sql, (after, limit) => h.store.readAfter(after, limit));
      expect(readRecord(sql, "notes")).toEqual(view);
      expect(listRecords(sql)).toEqual(listed);
    });
  });
});
