import { describe, expect, it } from "vitest";
import { allEvents, api, createSession, highWaterOf } from "./helpers";

/** A PATCH that changes nothing answers 200 and appends nothing (docs/API.md#sessions). */

const patch = (id: string, json: unknown) => api(`/v1/sessions/${id}`, { method: "PATCH", json });

describe("PATCH that changes nothing", () => {
  it("identical PATCHes append one event, not one each; the answer is the Session", async () => {
    const s = await createSession({ title: "start" });
    const first = await patch(s.id, { title: "renamed", maxModelCallsPerTurn: 7 });
    expect(first.status).toBe(200);
    const hw = await highWaterOf(s.id);
    expect(hw).toBe(2);
    for (const body of [
      { title: "renamed", maxModelCallsPerTurn: 7 },
      { title: "renamed" },
      { maxModelCallsPerTurn: 7 },
      { model: { ...first.body.model } },
      { model: { name: first.body.model.name } },
      { model: {} },
      {},
    ]) {
      const r = await patch(s.id, body);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(first.body);
    }
    expect(await highWaterOf(s.id)).toBe(hw);
  });

  it("a PATCH that changes one of its fields records only that field", async () => {
    const s = await createSession();
    expect((await patch(s.id, { title: null, maxModelCallsPerTurn: 1000 })).status).toBe(200);
    expect(await highWaterOf(s.id)).toBe(1);
    const r = await patch(s.id, { title: "new", maxModelCallsPerTurn: 1000 });
    expect(r.body.title).toBe("new");
    const events = await allEvents(s.id);
    expect(events).toHaveLength(2);
    expect(events[1].actions.stateDelta).toEqual({ title: "new" });
  });
});
