import { describe, expect, it } from "vitest";
import { HighwaterClient, HighwaterError } from "../../../src/client";
import { settledTo } from "../../do/drive";
import { BASE, createSession, TOKEN, worker } from "../../do/helpers";

/** The typed client covers the inbox, triggers and runs routes (docs/API.md §6), against the Worker in-process. */

const client = new HighwaterClient({
  baseUrl: BASE,
  token: TOKEN,
  fetch: (input, init) => worker.fetch(new Request(input, init)),
});

async function errorOf(p: Promise<unknown>): Promise<HighwaterError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HighwaterError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

describe("client: inbox, triggers, runs", () => {
  it("sends inbox messages, manages triggers and lists runs; errors carry the contract's codes", async () => {
    const s = await createSession({ tools: [] });
    const first = await client.inbox(s.id, { source: "hook", text: "ping", correlationId: "c-1" });
    expect(await client.inbox(s.id, { source: "hook", text: "ping", correlationId: "c-1" })).toEqual(first);
    await settledTo(s.id, (x) => !x.openTurn);
    expect((await client.runs(s.id)).runs).toMatchObject([{ trigger: null, state: "completed", outcome: "completed" }]);

    const t = await client.createTrigger(s.id, { name: "daily", text: "report", schedule: { cron: "0 6 * * *" } });
    expect(t).toMatchObject({
      name: "daily",
      schedule: { cron: "0 6 * * *" },
      nextAt: expect.stringMatching(/T06:00:00/),
    });
    expect((await client.triggers(s.id)).triggers).toEqual([t]);
    const dup = await errorOf(client.createTrigger(s.id, { name: "daily", text: "x", schedule: { everySeconds: 5 } }));
    expect([dup.status, dup.code]).toEqual([409, "conflict"]);
    const bad = await errorOf(client.createTrigger(s.id, { name: "bad", text: "x", schedule: { cron: "* * *" } }));
    expect([bad.status, bad.code]).toEqual([400, "bad_request"]);
    await client.deleteTrigger(s.id, "daily");
    expect((await client.triggers(s.id)).triggers).toEqual([]);
    const gone = await errorOf(client.deleteTrigger(s.id, "daily"));
    expect([gone.status, gone.code]).toEqual([404, "not_found"]);
  });

  it("pages triggers by name and runs newest first, each page's next leading to the rest (runs first: a trigger keeps an alarm set, and `settle` drives alarms)", async () => {
    const s = await createSession({ tools: [] });
    for (const text of ["one", "two", "three"]) {
      await client.inbox(s.id, { source: "hook", text });
      await settledTo(s.id, (x) => !x.openTurn);
    }
    const newest = await client.runs(s.id, { limit: 2 });
    expect(newest.runs).toHaveLength(2);
    expect(newest.next).toBeTruthy();
    const older = await client.runs(s.id, { limit: 2, before: newest.next });
    expect(older.runs).toHaveLength(1);
    expect(older.next).toBeUndefined();
    const all = [...newest.runs, ...older.runs];
    expect(new Set(all.map((r) => r.runId)).size).toBe(3);
    const started = all.map((r) => r.startedAt);
    expect(started).toEqual([...started].sort().reverse());

    for (const name of ["c", "a", "b"])
      await client.createTrigger(s.id, { name, text: "x", schedule: { cron: "0 6 * * *" } });
    const first = await client.triggers(s.id, { limit: 2 });
    expect(first.triggers.map((t) => t.name)).toEqual(["a", "b"]);
    expect(first.next).toBeTruthy();
    const second = await client.triggers(s.id, { limit: 2, after: first.next });
    expect(second.triggers.map((t) => t.name)).toEqual(["c"]);
    expect(second.next).toBeUndefined();
  });
});
