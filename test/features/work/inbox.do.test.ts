import { describe, expect, it } from "vitest";
import { settledTo } from "../../do/drive";
import { allEvents, api, createSession, expectError, highWaterOf, OTHER_TOKEN } from "../../do/helpers";

/** docs/API.md §6 inbox: external input with a source and a correlationId. */

const post = (path: string, json?: unknown, token?: string) =>
  api(path, { method: "POST", ...(json === undefined ? {} : { json }), ...(token ? { token } : {}) });

describe("inbox", () => {
  it("an inbox message opens a turn, recorded as inbox:<source>, and is a run with no trigger", async () => {
    const s = await createSession({ tools: [] });
    const r = await post(`/v1/sessions/${s.id}/inbox`, { source: "github.webhook", text: "build is red" });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ turnId: expect.any(String), seq: expect.any(Number) });
    const done = await settledTo(s.id, (x) => !x.openTurn);
    expect(done.status).toBe("idle");
    const events = await allEvents(s.id);
    const input = events.find((e) => e.seq === r.body.seq);
    expect(input).toMatchObject({
      author: "user",
      source: "inbox:github.webhook",
      turnId: r.body.turnId,
      modelVisibility: "visible",
      content: { type: "text", text: "build is red" },
    });
    expect(events.some((e) => e.actions?.turnClose && e.turnId === r.body.turnId)).toBe(true);
    const runs = (await api(`/v1/sessions/${s.id}/runs`)).body.runs;
    expect(runs).toEqual([
      {
        runId: input.runId,
        trigger: null,
        state: "completed",
        outcome: "completed",
        startedAt: input.at,
        endedAt: expect.any(String),
      },
    ]);
  });

  it("an inbox message joins an open turn and the model reads it in that turn", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const sent = await post(`/v1/sessions/${s.id}/messages`, { text: "remember the milk" });
    const waiting = await settledTo(s.id, (x) => x.status === "waiting_approval");
    const joined = await post(`/v1/sessions/${s.id}/inbox`, { source: "ci", text: "also the eggs" });
    expect(joined.status).toBe(202);
    expect(joined.body.turnId).toBe(sent.body.turnId);
    await post(`/v1/sessions/${s.id}/approvals/${waiting.pendingApprovals[0].requestId}`, { decision: "approve" });
    // The demo model takes the latest input as its task: its next call, in the same turn, says so.
    const next = await settledTo(s.id, (x) => x.status === "waiting_approval");
    expect(next.pendingApprovals[0].args.content).toContain("also the eggs");
    await post(`/v1/sessions/${s.id}/approvals/${next.pendingApprovals[0].requestId}`, { decision: "approve" });
    await settledTo(s.id, (x) => !x.openTurn);
    const events = await allEvents(s.id);
    const input = events.find((e) => e.seq === joined.body.seq);
    expect(input).toMatchObject({ source: "inbox:ci", turnId: sent.body.turnId });
    // One turn: one close, after the inbox input, and a model request made after it.
    const closes = events.filter((e) => e.actions?.turnClose);
    expect(closes).toHaveLength(1);
    expect(closes[0].seq).toBeGreaterThan(joined.body.seq);
    expect(events.some((e) => e.actions?.modelRequest && e.actions.modelRequest.throughSeq >= joined.body.seq)).toBe(
      true,
    );
    expect((await api(`/v1/sessions/${s.id}/runs`)).body.runs).toHaveLength(1);
  });

  it("a repeated correlationId appends nothing and returns the first answer; a message key is another space", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const body = { source: "mail", text: "hello", correlationId: "msg-42" };
    const first = await post(`/v1/sessions/${s.id}/inbox`, body);
    expect(first.status).toBe(202);
    const again = await post(`/v1/sessions/${s.id}/inbox`, { ...body, text: "hello again" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    // The turn's loop runs meanwhile, so the head may move; the repeat itself appended nothing.
    const events = await allEvents(s.id);
    expect(events.filter((e) => e.author === "user")).toHaveLength(1);
    expect(events.find((e) => e.seq === first.body.seq).actions).toEqual({ stateDelta: { idempotencyKey: "msg-42" } });
    expect(events.filter((e) => e.content?.type === "text" && e.author === "user")).toHaveLength(1);
    // The same string as a message's idempotencyKey is not the inbox's correlationId.
    const msg = await post(`/v1/sessions/${s.id}/messages`, { text: "x", idempotencyKey: "msg-42" });
    expect(msg.status).toBe(202);
    expect(msg.body.seq).not.toBe(first.body.seq);
    await post(`/v1/sessions/${s.id}/stop`);
  });

  it("bad input is 400 and appends nothing; someone else's or an unknown session is 404", async () => {
    const s = await createSession({ tools: [] });
    const hw = await highWaterOf(s.id);
    const path = `/v1/sessions/${s.id}/inbox`;
    for (const body of [
      { source: "has space", text: "x" },
      { source: "", text: "x" },
      { source: "a".repeat(65), text: "x" },
      { source: "a/b", text: "x" },
      { source: "ok", text: "" },
      { source: "ok" },
      { text: "x" },
      { source: "ok", text: "x", correlationId: "" },
      { source: "ok", text: "x", extra: 1 },
      null,
    ])
      expectError(await post(path, body), 400, "bad_request");
    expectError(await post(path, { source: "ok", text: "x" }, OTHER_TOKEN), 404, "not_found");
    expectError(await post(`/v1/sessions/${"0".repeat(64)}/inbox`, { source: "ok", text: "x" }), 404, "not_found");
    expectError(await api(path), 405, "method_not_allowed");
    expect(await highWaterOf(s.id)).toBe(hw);
  });
});
