import { describe, expect, it } from "vitest";
import { HighwaterClient, HighwaterError } from "../../src/client";
import { settledTo } from "./drive";
import { BASE, createSession, TOKEN, worker } from "./helpers";

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
});
