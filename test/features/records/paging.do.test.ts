/**
 * docs/API.md#records: `GET /records/:topic` returns a bounded page of the uncovered entries
 * (at most `limit`, at most 1 MiB of text) with `next`; following `next` returns each exactly once.
 */
import { describe, expect, it } from "vitest";
import { api, createSession, expectError, highWaterOf } from "../../do/helpers";

async function addEntries(id: string, topic: string, texts: string[]) {
  for (const text of texts) {
    const r = await api(`/v1/sessions/${id}/records/${topic}/entries`, { method: "POST", json: { text } });
    expect(r.status).toBe(201);
  }
}

describe("reading a record is bounded", () => {
  it("120 uncovered entries come 50 to a page by default, `limit` to a page when given, each once", async () => {
    const s = await createSession();
    await addEntries(
      s.id,
      "log",
      Array.from({ length: 120 }, (_, i) => `entry ${i + 1}`),
    );
    const first = (await api(`/v1/sessions/${s.id}/records/log`)).body;
    expect(first.uncovered).toHaveLength(50);
    expect(first.next).toBe(50);
    const ids: number[] = [];
    let after: number | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await api(`/v1/sessions/${s.id}/records/log?limit=40${after ? `&after=${after}` : ""}`);
      expect(r.status).toBe(200);
      ids.push(...r.body.uncovered.map((e: { id: number }) => e.id));
      if (r.body.next === undefined) break;
      after = r.body.next;
    }
    expect(ids).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    // A summary covering 100 leaves 20, on one page.
    await api(`/v1/sessions/${s.id}/records/log`, {
      method: "PUT",
      json: { content: "sum", expectedRevision: 0, coversEntry: 100 },
    });
    const rest = (await api(`/v1/sessions/${s.id}/records/log`)).body;
    expect(rest.uncovered.map((e: { id: number }) => e.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 101));
    expect(rest.next).toBeUndefined();
  });

  it("a page holds at most 1 MiB of entry text", async () => {
    const s = await createSession();
    const big = (c: string) => c.repeat(262_144);
    await addEntries(s.id, "big", ["a", "b", "c", "d", "e", "f"].map(big));
    const r = await api(`/v1/sessions/${s.id}/records/big`);
    expect(r.body.uncovered.map((e: { text: string }) => e.text.length)).toEqual([262_144, 262_144, 262_144, 262_144]);
    expect(r.body.next).toBe(4);
    const next = await api(`/v1/sessions/${s.id}/records/big?after=4`);
    expect(next.body.uncovered.map((e: { id: number }) => e.id)).toEqual([5, 6]);
    expect(next.body.next).toBeUndefined();
  });

  it("bad paging is 400 and appends nothing", async () => {
    const s = await createSession();
    const hw = await highWaterOf(s.id);
    for (const q of ["limit=0", "limit=201", "after=-1", "after=x", "before=1"])
      expectError(await api(`/v1/sessions/${s.id}/records/log?${q}`), 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(hw);
  });
});
