/**
 * `POST /v1/sessions/:id/runs/:runId/resume` and `maxModelCallsPerTurn` through HTTP (docs/API.md
 * §2, §6, §7.1, §7.27, §7.28), with the demo model (four tool calls, then its answer: five calls).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settledTo } from "./drive";
import { allEvents, api, createSession, expectError, highWaterOf, openSocket } from "./helpers";

const post = (path: string, json?: unknown) => api(path, { method: "POST", ...(json === undefined ? {} : { json }) });

async function alarmOf(id: string): Promise<number | null> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
  return runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
}

/** A session with a budget of 2 whose first turn waits at its budget. */
async function waitingAtBudget() {
  const s = await createSession({ maxModelCallsPerTurn: 2 });
  const sent = await post(`/v1/sessions/${s.id}/messages`, { text: "remember the milk" });
  expect(sent.status).toBe(202);
  const session = await settledTo(s.id, (x) => x.status === "waiting");
  return { id: s.id, turnId: sent.body.turnId as string, session };
}

describe("maxModelCallsPerTurn", () => {
  it("is 1–100000 at create and PATCH, else 400 and nothing is appended; the default is 1000", async () => {
    for (const bad of [0, 100_001, 1.5, "x", null]) {
      expectError(await post("/v1/sessions", { maxModelCallsPerTurn: bad }), 400, "bad_request");
    }
    const s = await createSession();
    expect((await api(`/v1/sessions/${s.id}`)).body.maxModelCallsPerTurn).toBe(1000);
    const hw = await highWaterOf(s.id);
    for (const bad of [0, 100_001, 1.5, "x"]) {
      const r = await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { maxModelCallsPerTurn: bad } });
      expectError(r, 400, "bad_request");
    }
    expect(await highWaterOf(s.id)).toBe(hw);
    const ok = await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { maxModelCallsPerTurn: 100_000 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ maxModelCallsPerTurn: 100_000, wait: null });
    const one = await createSession({ maxModelCallsPerTurn: 1 });
    expect((await api(`/v1/sessions/${one.id}`)).body.maxModelCallsPerTurn).toBe(1);
  });
});

describe("resume", () => {
  it("a budget wait holds no alarm; only its waitId resumes it (202 { seq }); the turn then completes", async () => {
    const { id, turnId, session } = await waitingAtBudget();
    expect(session).toMatchObject({
      status: "waiting",
      openTurn: true,
      wait: { kind: "budget", waitId: `budget:${turnId}:1`, modelCalls: 2 },
    });
    expect(await alarmOf(id)).toBeNull();
    const runId = session.wait.runId as string;
    const path = `/v1/sessions/${id}/runs/${runId}/resume`;

    // docs/API.md §7.1: unknown run 404 before the body is looked at; then 400; then 409.
    expectError(await post(`/v1/sessions/${id}/runs/not-a-run/resume`, { waitId: "x" }), 404, "not_found");
    expectError(await post(`/v1/sessions/${id}/runs/not-a-run/resume`, { nope: 1 }), 404, "not_found");
    expectError(await api(path), 405, "method_not_allowed");
    expectError(await post(path, {}), 400, "bad_request");
    expectError(await post(path, { waitId: session.wait.waitId, extra: true }), 400, "bad_request");
    expectError(await post(path, { waitId: session.wait.waitId, text: 5 }), 400, "bad_request");
    const big = "x".repeat(262_145);
    expectError(await post(path, { waitId: session.wait.waitId, text: big }), 413, "payload_too_large");
    const hw = await highWaterOf(id);
    for (const waitId of [`budget:${turnId}:2`, `budget:${turnId}:0`, "wait:call_x"])
      expectError(await post(path, { waitId }), 409, "conflict");
    expect(await highWaterOf(id)).toBe(hw);

    // An ordinary message is accepted and does not release the wait.
    expect((await post(`/v1/sessions/${id}/messages`, { text: "also buy bread" })).status).toBe(202);
    expect(await settledTo(id, (x) => x.status === "waiting")).toMatchObject({
      wait: { waitId: `budget:${turnId}:1` },
    });

    const r = await post(path, { waitId: `budget:${turnId}:1` });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ seq: expect.any(Number) });
    const second = await settledTo(id, (x) => x.status === "waiting");
    expect(second.wait).toMatchObject({ kind: "budget", waitId: `budget:${turnId}:2`, modelCalls: 2 });
    // The used id is 409 now.
    expectError(await post(path, { waitId: `budget:${turnId}:1` }), 409, "conflict");

    // The demo reads the joined message as a new task, so it may need more budgets: resume each.
    let current = second;
    let resumes = 1;
    for (; current.openTurn; resumes++) {
      expect(current.wait).toMatchObject({ kind: "budget", waitId: `budget:${turnId}:${resumes + 1}` });
      const text = resumes === 1 ? "and then finish" : "";
      expect((await post(path, { waitId: current.wait.waitId, text })).status).toBe(202);
      current = await settledTo(id, (x) => x.status === "waiting" || !x.openTurn);
    }
    expect(current).toMatchObject({ status: "idle", wait: null });
    const events = await allEvents(id);
    const waits = events.filter((e) => e.actions?.stateDelta?.budgetWait);
    expect(waits.length).toBe(resumes);
    expect(waits.every((e) => e.actions.stateDelta.budgetWait.modelCalls === 2)).toBe(true);
    expect(events.filter((e) => e.actions?.stateDelta?.budgetResume)).toHaveLength(resumes);
    expect(events.filter((e) => e.actions?.modelRequest).length).toBeLessThanOrEqual(2 * resumes + 2);
    expect(events.filter((e) => e.source === "resume").map((e) => e.content)).toEqual([
      { type: "text", text: "and then finish" },
    ]);
    expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
  });

  it("a stop ends a turn waiting at its budget; the wait's id is 409 afterwards", async () => {
    const { id, session } = await waitingAtBudget();
    const stopped = await post(`/v1/sessions/${id}/stop`);
    expect(stopped.body).toMatchObject({ status: "idle", openTurn: false, wait: null });
    const events = await allEvents(id);
    expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "stopped" });
    const r = await post(`/v1/sessions/${id}/runs/${session.wait.runId}/resume`, { waitId: session.wait.waitId });
    expectError(r, 409, "conflict");
  });

  it("someone else's session is 404", async () => {
    const { id, session } = await waitingAtBudget();
    const r = await api(`/v1/sessions/${id}/runs/${session.wait.runId}/resume`, {
      method: "POST",
      json: { waitId: session.wait.waitId },
      token: "test-token-b",
    });
    expectError(r, 404, "not_found");
  });

  it("docs/API.md §7.27: a session frame is sent when the wait starts and when it is released", async () => {
    const s = await createSession({ maxModelCallsPerTurn: 1 });
    const { probe } = await openSocket(s.id);
    await probe!.waitFor((f) => f.type === "ready");
    await post(`/v1/sessions/${s.id}/messages`, { text: "remember the milk" });
    const waiting = await settledTo(s.id, (x) => x.status === "waiting");
    const started = await probe!.waitFor((f) => f.type === "session" && f.session.wait !== null);
    expect(started.session.wait).toEqual(waiting.wait);
    const from = probe!.frames.length;
    await post(`/v1/sessions/${s.id}/runs/${waiting.wait.runId}/resume`, { waitId: waiting.wait.waitId });
    const released = await probe!.waitFor((f) => f.type === "session" && f.session.wait === null, { from });
    expect(released.session.status).not.toBe("waiting");
    probe!.close();
  });
});
