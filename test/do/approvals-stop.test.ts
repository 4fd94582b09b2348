import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settledTo } from "./drive";
import { allEvents, api, createSession, expectError, highWaterOf, openSocket } from "./helpers";

/** docs/API.md §3 (approvals, stop, turns) and §2 (PATCH model) through HTTP. */

const APPROVE_WRITES = { approvals: [{ tool: "write_file" }] };

const post = (path: string, json?: unknown) => api(path, { method: "POST", ...(json === undefined ? {} : { json }) });

/** Sends a task and waits until the demo's write_file call waits for a decision. */
async function startAndWaitForApproval(id: string, text = "remember the milk") {
  const sent = await post(`/v1/sessions/${id}/messages`, { text });
  expect(sent.status).toBe(202);
  const session = await settledTo(id, (x) => x.status === "waiting_approval" && x.pendingApprovals.length === 1);
  return { turnId: sent.body.turnId as string, session, pending: session.pendingApprovals[0] };
}

const byCall = (events: any[], callId: string) => ({
  dispatches: events.filter((e) => e.actions?.toolDispatch?.callId === callId),
  responses: events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === callId),
});

/** Every functionCall in the log has exactly one functionResponse (docs/API.md §3). */
function expectEveryCallAnswered(events: any[]) {
  for (const c of events.filter((e) => e.content?.type === "functionCall")) {
    expect(byCall(events, c.content.callId).responses, c.content.callId).toHaveLength(1);
  }
}

/**
 * Runs whatever alarm the object has left (a slice, if one is due) and checks that the log did
 * not move: nothing runs after a close, a stop or while a decision is pending.
 */
async function expectStable(id: string) {
  const hw = await highWaterOf(id);
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
  for (let i = 0; i < 3 && (await runDurableObjectAlarm(stub)); i++);
  expect(await highWaterOf(id)).toBe(hw);
  return hw;
}

describe("approvals", () => {
  it("a matching call becomes a permissionRequest and waits; nothing runs until it is decided", async () => {
    const s = await createSession(APPROVE_WRITES);
    const { turnId, session, pending } = await startAndWaitForApproval(s.id);
    expect(session).toMatchObject({ status: "waiting_approval", openTurn: true });
    expect(pending).toEqual({
      requestId: expect.stringMatching(/^apr_[0-9a-f]{24}$/),
      callId: expect.any(String),
      tool: "write_file",
      args: { path: "notes/task.md", content: expect.stringContaining("remember the milk") },
      argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const events = await allEvents(s.id);
    const call = events.find((e) => e.content?.type === "functionCall");
    expect(call.content).toMatchObject({ callId: pending.callId, name: "write_file" });
    const req = events.find((e) => e.actions?.permissionRequest);
    expect(req).toMatchObject({ turnId, actions: { permissionRequest: pending } });
    expect(req.seq).toBeGreaterThan(call.seq);
    expect(byCall(events, pending.callId)).toEqual({ dispatches: [], responses: [] });
    // Waiting is durable: no alarm or loop moves the log meanwhile.
    await expectStable(s.id);
    expect((await api(`/v1/sessions/${s.id}/files`)).body.files).toEqual([]);
    await post(`/v1/sessions/${s.id}/stop`);
  });

  it("approve: exactly one dispatch and one ok response for the call, and the turn completes", async () => {
    const s = await createSession(APPROVE_WRITES);
    const { pending } = await startAndWaitForApproval(s.id);
    const r = await post(`/v1/sessions/${s.id}/approvals/${pending.requestId}`, {
      decision: "approve",
      reason: "fine",
      argsDigest: pending.argsDigest,
    });
    expect(r.status).toBe(200);
    expect(r.body.pendingApprovals).toEqual([]);
    expect(r.body.status).not.toBe("waiting_approval");
    const done = await settledTo(s.id, (x) => x.openTurn === false);
    expect(done.status).toBe("idle");
    const events = await allEvents(s.id);
    const decision = events.find((e) => e.actions?.permissionDecision);
    expect(decision.actions.permissionDecision).toEqual({
      requestId: pending.requestId,
      decision: "approve",
      reason: "fine",
      argsDigest: pending.argsDigest,
    });
    const { dispatches, responses } = byCall(events, pending.callId);
    expect(dispatches).toHaveLength(1);
    expect(responses).toHaveLength(1);
    expect(dispatches[0].actions.toolDispatch).toMatchObject({ tool: "write_file", effect: "write" });
    expect(responses[0].content.status).toBe("ok");
    expect(decision.seq).toBeLessThan(dispatches[0].seq);
    expect(dispatches[0].seq).toBeLessThan(responses[0].seq);
    expect(events.at(-1).actions.turnClose).toEqual({ reason: "completed" });
    expectEveryCallAnswered(events);
    const file = await api(`/v1/sessions/${s.id}/files/notes/task.md`);
    expect(file.status).toBe(200);
    expect(file.body).toContain("remember the milk");
    expect((await api(`/v1/sessions/${s.id}/verify`)).body).toMatchObject({ ok: true, problems: [] });
  });

  it("reject: a rejected response with no dispatch, the model reads it and the loop goes on", async () => {
    const s = await createSession(APPROVE_WRITES);
    const { pending } = await startAndWaitForApproval(s.id);
    const r = await post(`/v1/sessions/${s.id}/approvals/${pending.requestId}`, {
      decision: "reject",
      reason: "no writes today",
    });
    expect(r.status).toBe(200);
    expect(r.body.pendingApprovals).toEqual([]);
    const done = await settledTo(s.id, (x) => x.openTurn === false);
    expect(done.status).toBe("idle");
    const events = await allEvents(s.id);
    const { dispatches, responses } = byCall(events, pending.callId);
    expect(dispatches).toEqual([]);
    expect(responses).toHaveLength(1);
    expect(responses[0].content).toMatchObject({ status: "rejected", name: "write_file" });
    expect(JSON.stringify(responses[0].content.response)).toContain("no writes today");
    // The loop went on: later tool calls ran and the turn completed.
    const later = events.filter((e) => e.seq > responses[0].seq && e.actions?.toolDispatch);
    expect(later.length).toBeGreaterThan(0);
    expect(events.at(-1).actions.turnClose).toEqual({ reason: "completed" });
    const answer = events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1);
    expect(answer.content.text).toContain("rejected");
    expectEveryCallAnswered(events);
    expect((await api(`/v1/sessions/${s.id}/files`)).body.files).toEqual([]);
  });
});

describe("stop", () => {
  it("while waiting for approval: reject decision, rejected response and turnClose stopped, closed in the answer", async () => {
    const s = await createSession(APPROVE_WRITES);
    const { session, pending } = await startAndWaitForApproval(s.id);
    const r = await post(`/v1/sessions/${s.id}/stop`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ openTurn: false, status: "idle", pendingApprovals: [] });
    const events = await allEvents(s.id);
    const appended = events.filter((e) => e.seq > session.highWater);
    expect(appended.map((e) => e.seq)).toEqual([session.highWater + 1, session.highWater + 2, session.highWater + 3]);
    expect(appended[0].actions.permissionDecision).toMatchObject({ requestId: pending.requestId, decision: "reject" });
    expect(appended[1].content).toMatchObject({ type: "functionResponse", callId: pending.callId, status: "rejected" });
    expect(appended[2].actions.turnClose).toEqual({ reason: "stopped" });
    expect(r.body.highWater).toBe(session.highWater + 3);
    expect(byCall(events, pending.callId).dispatches).toEqual([]);
    expectEveryCallAnswered(events);
    // The request was decided by the stop; a late decision is a conflict and appends nothing.
    expectError(
      await post(`/v1/sessions/${s.id}/approvals/${pending.requestId}`, { decision: "approve" }),
      409,
      "conflict",
    );
    await expectStable(s.id);
    expect((await api(`/v1/sessions/${s.id}/files`)).body.files).toEqual([]);
  });

  it("while the model streams: turnClose stopped, idle, streamed text not committed, nothing appended afterwards", async () => {
    const s = await createSession();
    const { probe } = await openSocket(s.id);
    const ws = probe!;
    await post(`/v1/sessions/${s.id}/messages`, { text: "stop me midway" });
    // The final answer streams in six chunks; stop as soon as its first one is seen.
    const delta = await ws.waitFor((f) => f.type === "delta" && f.text.includes("This answer comes from"));
    const r = await post(`/v1/sessions/${s.id}/stop`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ openTurn: false, status: "idle", pendingApprovals: [] });
    const hw = await expectStable(s.id);
    expect(r.body.highWater).toBe(hw);
    const events = await allEvents(s.id);
    expect(events.at(-1).actions.turnClose).toEqual({ reason: "stopped" });
    expect(events.filter((e) => e.actions?.turnClose)).toHaveLength(1);
    expect(events.filter((e) => e.invocationId === delta.invocationId && e.author === "model")).toEqual([]);
    expectEveryCallAnswered(events);
    expect((await api(`/v1/sessions/${s.id}/verify`)).body.ok).toBe(true);
    ws.close();
  });

  it("right after the message: the turn closes stopped and is never continued", async () => {
    const s = await createSession();
    const sent = await post(`/v1/sessions/${s.id}/messages`, { text: "never mind" });
    const r = await post(`/v1/sessions/${s.id}/stop`);
    expect(r.body).toMatchObject({ openTurn: false, status: "idle" });
    const hw = await expectStable(s.id);
    const events = await allEvents(s.id);
    expect(events.at(-1)).toMatchObject({
      seq: hw,
      turnId: sent.body.turnId,
      actions: { turnClose: { reason: "stopped" } },
    });
    expectEveryCallAnswered(events);
    // A stop with no open turn changes nothing.
    const again = await post(`/v1/sessions/${s.id}/stop`);
    expect(again.body).toMatchObject({ openTurn: false, highWater: hw });
  });

  it("a new message after a stop opens a new turn that runs to completion", async () => {
    const s = await createSession(APPROVE_WRITES);
    const first = await startAndWaitForApproval(s.id);
    await post(`/v1/sessions/${s.id}/stop`);
    const sent = await post(`/v1/sessions/${s.id}/messages`, { text: "second try" });
    expect(sent.body.turnId).not.toBe(first.turnId);
    const second = await settledTo(s.id, (x) => x.status === "waiting_approval");
    expect(second.pendingApprovals[0].requestId).not.toBe(first.pending.requestId);
    await post(`/v1/sessions/${s.id}/approvals/${second.pendingApprovals[0].requestId}`, { decision: "approve" });
    await settledTo(s.id, (x) => x.openTurn === false);
    const closes = (await allEvents(s.id))
      .filter((e) => e.actions?.turnClose)
      .map((e) => [e.turnId, e.actions.turnClose.reason]);
    expect(closes).toEqual([
      [first.turnId, "stopped"],
      [sent.body.turnId, "completed"],
    ]);
  });
});

describe("switching the model (PATCH)", () => {
  it("records a stateDelta; the open turn keeps its model and the next turn uses the new one", async () => {
    const s = await createSession(APPROVE_WRITES);
    const { turnId, session, pending } = await startAndWaitForApproval(s.id);
    expect(session.model).toMatchObject({ provider: "demo", contextWindow: 128_000 });
    const r = await api(`/v1/sessions/${s.id}`, {
      method: "PATCH",
      json: { model: { name: "other", contextWindow: 64_000 } },
    });
    expect(r.status).toBe(200);
    expect(r.body.model).toMatchObject({ provider: "demo", name: "other", contextWindow: 64_000 });
    expect(r.body.highWater).toBe(session.highWater + 1);
    const delta = (await allEvents(s.id)).at(-1);
    expect(delta).toMatchObject({
      turnId,
      actions: { stateDelta: { model: { name: "other", contextWindow: 64_000 } } },
    });
    // The next call of the open turn is still built for the model recorded when it opened.
    expect((await api(`/v1/sessions/${s.id}/context`)).body.contextWindow).toBe(128_000);
    await post(`/v1/sessions/${s.id}/approvals/${pending.requestId}`, { decision: "approve" });
    const done = await settledTo(s.id, (x) => x.openTurn === false);
    expect(done.model.name).toBe("other");
    const events = await allEvents(s.id);
    expect(events.at(-1).actions.turnClose).toEqual({ reason: "completed" });
    // The new model shows once no turn holds the old one.
    expect((await api(`/v1/sessions/${s.id}/context`)).body.contextWindow).toBe(64_000);
  });

  it("a switch to a provider this Worker has no credentials for is refused (docs/API.md §1) and appends nothing", async () => {
    const s = await createSession();
    const hw = await highWaterOf(s.id);
    const r = await api(`/v1/sessions/${s.id}`, {
      method: "PATCH",
      json: { model: { provider: "anthropic", name: "claude-x" } },
    });
    expectError(r, 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(hw);
    expect((await api(`/v1/sessions/${s.id}`)).body.model.provider).toBe("demo");
  });
});
