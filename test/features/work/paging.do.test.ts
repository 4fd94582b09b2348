/**
 * docs/API.md#paging: `GET /triggers` and `GET /runs` return bounded pages with `next`; following
 * `next` returns every trigger and every run exactly once; bad paging is 400 and appends nothing.
 */
import { describe, expect, it } from "vitest";
import { settle } from "../../do/drive";
import { api, createSession, expectError, highWaterOf } from "../../do/helpers";

const post = (path: string, json: unknown) => api(path, { method: "POST", json });

async function pages<T>(first: string, key: "triggers" | "runs", cursor: "after" | "before"): Promise<T[][]> {
  const out: T[][] = [];
  let url = first;
  for (let i = 0; i < 50; i++) {
    const r = await api(url);
    expect(r.status).toBe(200);
    out.push(r.body[key]);
    if (!r.body.next) return out;
    url = `${first}&${cursor}=${encodeURIComponent(r.body.next)}`;
  }
  throw new Error("paging did not end");
}

describe("paging triggers and runs", () => {
  it("triggers come by name in pages of `limit`, each page but the last with `next`", async () => {
    const s = await createSession({ tools: [] });
    const names = ["a1", "b2", "c3", "d4", "e5", "f6", "g7"];
    for (const name of [...names].reverse())
      expect(
        (await post(`/v1/sessions/${s.id}/triggers`, { name, text: "x", schedule: { everySeconds: 3600 } })).status,
      ).toBe(201);
    const got = await pages<{ name: string }>(`/v1/sessions/${s.id}/triggers?limit=3`, "triggers", "after");
    expect(got.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(got.flat().map((t) => t.name)).toEqual(names);
    // The default page holds them all, with no `next`.
    const all = await api(`/v1/sessions/${s.id}/triggers`);
    expect(all.body.triggers).toHaveLength(7);
    expect(all.body.next).toBeUndefined();
  });

  it("runs come newest first in pages of `limit`; a full page always says `next`", async () => {
    const s = await createSession({ tools: [] });
    for (let i = 0; i < 5; i++) {
      expect((await post(`/v1/sessions/${s.id}/messages`, { text: `turn ${i}` })).status).toBe(202);
      await settle(s.id);
    }
    const got = await pages<{ runId: string; startedAt: string }>(
      `/v1/sessions/${s.id}/runs?limit=2`,
      "runs",
      "before",
    );
    expect(got.map((p) => p.length)).toEqual([2, 2, 1]);
    const runs = got.flat();
    expect(new Set(runs.map((r) => r.runId)).size).toBe(5);
    const all = (await api(`/v1/sessions/${s.id}/runs`)).body;
    expect(all.runs.map((r: { runId: string }) => r.runId)).toEqual(runs.map((r) => r.runId));
    expect(all.next).toBeUndefined();
  });

  it("bad paging is 400 and appends nothing", async () => {
    const s = await createSession({ tools: [] });
    const hw = await highWaterOf(s.id);
    for (const q of ["limit=0", "limit=501", "limit=x", "before=abc", "before=0", "after=1", "cursor=1"])
      expectError(await api(`/v1/sessions/${s.id}/runs?${q}`), 400, "bad_request");
    for (const q of ["limit=0", "limit=501", "after=", "before=1"])
      expectError(await api(`/v1/sessions/${s.id}/triggers?${q}`), 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(hw);
  });
});
