import { describe, expect, it } from "vitest";
import { settledTo } from "./drive";
import { allEvents, api, createSession } from "./helpers";

describe("a session with the demo model", () => {
  it("runs a task to a completed turn with paired dispatches and a verifiable log", async () => {
    const s = await createSession({ title: "demo" });
    expect(s.highWater).toBe(1);
    const sent = await api(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      json: { text: "write a haiku about logs" },
    });
    expect(sent.status).toBe(202);
    expect(sent.body.seq).toBe(2);
    const done = await settledTo(s.id, (x) => x.openTurn === false);
    expect(done.status).toBe("idle");
    const events = await allEvents(s.id);
    const kinds = events.map((e) => e.content?.type ?? Object.keys(e.actions ?? {})[0]);
    expect(kinds).toContain("functionCall");
    expect(events.at(-1).actions.turnClose.reason).toBe("completed");
    const calls = events.filter((e) => e.content?.type === "functionCall");
    for (const c of calls) {
      const d = events.findIndex((e) => e.actions?.toolDispatch?.callId === c.content.callId);
      const r = events.findIndex(
        (e) => e.content?.type === "functionResponse" && e.content.callId === c.content.callId,
      );
      expect(d).toBeGreaterThan(-1);
      expect(r).toBeGreaterThan(d);
    }
    const v = await api(`/v1/sessions/${s.id}/verify`);
    expect(v.body).toMatchObject({ ok: true, problems: [] });
    const files = await api(`/v1/sessions/${s.id}/files`);
    expect(files.body.files.length).toBeGreaterThan(0);
  });
});
