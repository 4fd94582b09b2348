import { describe, expect, it } from "vitest";
import { allEvents, api, createSession, waitForSession } from "./helpers";

describe("probe", () => {
  it("timing", async () => {
    const s = await createSession({ title: "demo" });
    const t0 = Date.now();
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "write a haiku about logs" } });
    await waitForSession(s.id, (x) => x.openTurn === false);
    console.log("turn ms", Date.now() - t0);
    const events = await allEvents(s.id);
    for (const e of events) console.log(e.seq, e.at, e.author, e.content?.type ?? Object.keys(e.actions ?? {}).join(","));
    expect(1).toBe(1);
  });
});
