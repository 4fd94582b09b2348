/**
 * docs/API.md §6 `spawn_session`, §7.31, §2 (parentId, children listed for the parent's principal,
 * status `waiting`): sub-sessions through HTTP with real session objects and the demo model
 * ("spawn: <goal>" makes it call spawn_session). Objects run on their own alarms; the helpers
 * poll for states and never assert on timings.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ModelConfig } from "../../../src/model/types";
import { scriptedProvider, withSession } from "../../do/context-harness";
import {
  allEvents,
  api,
  createSession,
  expectError,
  listSessionIds,
  OTHER_TOKEN,
  waitForSession,
} from "../../do/helpers";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };
const post = (path: string, json?: unknown) => api(path, { method: "POST", ...(json === undefined ? {} : { json }) });
const spawnCalls = (events: any[]) =>
  events.filter((e) => e.content?.type === "functionCall" && e.content.name === "spawn_session");
const responsesTo = (events: any[], callId: string) =>
  events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === callId);
const userTexts = (events: any[]) => events.filter((e) => e.author === "user" && e.content?.type === "text");

/** The children the principal can see, by parent. */
async function childrenOf(parentId: string): Promise<any[]> {
  const r = await api("/v1/sessions?limit=100");
  return r.body.sessions.filter((s: any) => s.parentId === parentId);
}

describe("spawn_session", () => {
  it("creates a child with its own log, listed with parentId; the parent waits, gets exactly one response and continues", async () => {
    const parent = await createSession({ title: "parent" });
    expect((await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: summarize the weather" })).status).toBe(
      202,
    );
    const closed = await waitForSession(parent.id, (s) => s.status === "idle" && !s.openTurn, 25_000);
    expect(closed.wait).toBeNull();

    const events = await allEvents(parent.id);
    const [call] = spawnCalls(events);
    expect(call).toBeDefined();
    const dispatch = events.filter((e) => e.actions?.toolDispatch?.callId === call.content.callId);
    expect(dispatch).toHaveLength(1);
    expect(dispatch[0].actions.toolDispatch.effect).toBe("idempotent");
    const responses = responsesTo(events, call.content.callId);
    expect(responses).toHaveLength(1);
    const response = responses[0].content;
    expect(response.status).toBe("ok");
    expect(response.response).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f]{64}$/),
      status: "completed",
      result: expect.stringContaining("demo model"),
    });
    // The parent went on: a model answer after the response, then the close.
    const after = events.filter((e) => e.seq > responses[0].seq);
    expect(after.some((e) => e.author === "model" && e.content?.type === "text")).toBe(true);
    expect(after.at(-1).actions?.turnClose?.reason).toBe("completed");

    const childId = response.response.sessionId;
    const children = await childrenOf(parent.id);
    expect(children.map((c) => c.id)).toEqual([childId]);
    const child = (await api(`/v1/sessions/${childId}`)).body;
    expect(child).toMatchObject({ id: childId, parentId: parent.id, status: "idle", openTurn: false });
    const childEvents = await allEvents(childId);
    expect(childEvents[0].actions.stateDelta.session.spawnedBy).toEqual({
      sessionId: parent.id,
      callId: call.content.callId,
      depth: 1,
    });
    // The goal is the child's first and only message, and its report was acknowledged once.
    expect(userTexts(childEvents).map((e) => e.content.text)).toEqual(["summarize the weather"]);
    expect(childEvents.filter((e) => e.actions?.stateDelta?.reportAcked)).toHaveLength(1);
    expect(childEvents.some((e) => e.actions?.toolDispatch?.tool === "write_file")).toBe(true);
    // Its own workspace: the parent wrote no file.
    expect((await api(`/v1/sessions/${parent.id}/files`)).body.files).toEqual([]);
    expect((await api(`/v1/sessions/${childId}/files`)).body.files.map((f: any) => f.path)).toEqual(["notes/task.md"]);
    expect((await api(`/v1/sessions/${childId}/verify`)).body.ok).toBe(true);
    // Someone else's principal sees neither.
    expectError(await api(`/v1/sessions/${childId}`, { token: OTHER_TOKEN }), 404, "not_found");
    expect(await listSessionIds(OTHER_TOKEN)).not.toContain(childId);
  });

  it("a repeated report is only acknowledged; a report from a session that is not the call's child is refused", async () => {
    const parent = await createSession();
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: say hi" });
    await waitForSession(parent.id, (s) => s.status === "idle", 25_000);
    const events = await allEvents(parent.id);
    const [call] = spawnCalls(events);
    const [resp] = responsesTo(events, call.content.callId);
    const childId = resp.content.response.sessionId;
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(parent.id));
    const hw = events.at(-1).seq;
    const again = await stub.childReport({ callId: call.content.callId, childId, status: "failed", result: "late" });
    expect(again).toEqual({ ok: true, value: { acked: true } });
    const forged = await stub.childReport({
      callId: call.content.callId,
      childId: parent.id,
      status: "completed",
      result: "forged",
    });
    expect(forged).toMatchObject({ ok: false, error: { code: "not_found" } });
    const after = await allEvents(parent.id);
    expect(after.at(-1).seq).toBe(hw);
    expect(responsesTo(after, call.content.callId)).toHaveLength(1);
    // The child id is derived from the parent and the callId: the same spawn names the same child.
    expect(childId).toBe(env.SESSIONS.idFromName(`child:${parent.id}:${call.content.callId}`).toString());
  });

  it("shows the parent waiting (kind child) while the child works, with no alarm held for it", async () => {
    const parent = await createSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: keep a note" });
    // The child inherits the approval rule, so it stops at its write_file and the parent waits.
    const waiting = await waitForSession(parent.id, (s) => s.status === "waiting");
    expect(waiting.wait).toMatchObject({ kind: "child", waitId: expect.stringMatching(/^child:call_/) });
    const [child] = await childrenOf(parent.id);
    const c = await waitForSession(child.id, (s) => s.status === "waiting_approval");
    expect(c.pendingApprovals[0].tool).toBe("write_file");
    expect(c.model).toEqual(waiting.model);
    // Nothing runs in the parent while it waits: an alarm run appends nothing.
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(parent.id));
    const hw = (await api(`/v1/sessions/${parent.id}`)).body.highWater;
    await runDurableObjectAlarm(stub);
    expect((await api(`/v1/sessions/${parent.id}`)).body.highWater).toBe(hw);

    // Approving in the child lets it finish; the parent gets its one response.
    const decided = await post(`/v1/sessions/${child.id}/approvals/${c.pendingApprovals[0].requestId}`, {
      decision: "approve",
    });
    expect(decided.status).toBe(200);
    await waitForSession(parent.id, (s) => s.status === "idle", 25_000);
    const events = await allEvents(parent.id);
    const [call] = spawnCalls(events);
    expect(responsesTo(events, call.content.callId)).toHaveLength(1);
  });

  it("dispatches every spawn of one answer before waiting, one child per call", async () => {
    const parent = await createSession();
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn 3: count to three" });
    await waitForSession(parent.id, (s) => s.status === "idle", 30_000);
    const events = await allEvents(parent.id);
    const calls = spawnCalls(events);
    expect(calls).toHaveLength(3);
    const dispatchSeqs = calls.map((c) => events.find((e) => e.actions?.toolDispatch?.callId === c.content.callId).seq);
    const firstResponse = Math.min(...calls.map((c) => responsesTo(events, c.content.callId)[0].seq));
    expect(Math.max(...dispatchSeqs)).toBeLessThan(firstResponse);
    const ids = calls.map((c) => responsesTo(events, c.content.callId)[0].content.response.sessionId);
    expect(new Set(ids).size).toBe(3);
    expect((await childrenOf(parent.id)).map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it("bad arguments are invalid_arguments the model reads, and create no child", async () => {
    const bad = [
      {},
      { goal: "" },
      { goal: "   " },
      { goal: 1 },
      { goal: "x", tools: ["nope"] },
      { goal: "x", extra: 1 },
    ];
    const provider = scriptedProvider({
      next: (_r, n) =>
        n < bad.length ? { kind: "call", name: "spawn_session", args: bad[n]! } : { kind: "answer", text: "ok" },
    });
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("spawn badly");
      const events = h.events();
      const calls = events.filter((e) => e.content?.type === "functionCall");
      expect(calls).toHaveLength(bad.length);
      for (const call of calls) {
        const callId = (call.content as { callId: string }).callId;
        const dispatch = events.filter((e) => e.actions?.toolDispatch?.callId === callId);
        expect(dispatch.map((e) => e.actions?.toolDispatch?.effect)).toEqual(["read"]);
        const [resp] = responsesTo(events, callId);
        expect(resp.content).toMatchObject({ status: "error", response: { code: "invalid_arguments" } });
      }
      expect(h.runtime.session()).toMatchObject({ status: "idle", wait: null });
    });
  });

  it("nests at most 5 deep: the sixth spawn is refused and the chain still closes", async () => {
    const root = await createSession();
    await post(`/v1/sessions/${root.id}/messages`, {
      text: "spawn: spawn: spawn: spawn: spawn: spawn: the bottom",
    });
    await waitForSession(root.id, (s) => s.status === "idle", 60_000);
    // Walk the chain down by each response's sessionId.
    let id = root.id;
    const chain: string[] = [];
    for (;;) {
      const events = await allEvents(id);
      const [call] = spawnCalls(events);
      if (!call) break;
      const [resp] = responsesTo(events, call.content.callId);
      if (resp.content.status !== "ok") {
        expect(resp.content.status).toBe("error");
        expect(resp.content.response.code).toBe("nesting_too_deep");
        break;
      }
      id = resp.content.response.sessionId;
      chain.push(id);
    }
    expect(chain).toHaveLength(5);
    const deepest = await allEvents(chain[4]!);
    expect(deepest[0].actions.stateDelta.session.spawnedBy.depth).toBe(5);
  });

  it("stopping the parent stops the child, recorded as stopChildren and acknowledged", async () => {
    const parent = await createSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: wait for me" });
    await waitForSession(parent.id, (s) => s.status === "waiting");
    const [child] = await childrenOf(parent.id);
    await waitForSession(child.id, (s) => s.status === "waiting_approval");

    const stopped = await post(`/v1/sessions/${parent.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ openTurn: false, status: "idle", wait: null });
    const c = await waitForSession(child.id, (s) => !s.openTurn);
    expect(c.status).toBe("idle");
    const childEvents = await allEvents(child.id);
    expect(childEvents.at(-1).actions?.turnClose?.reason ?? "").not.toBe("completed");
    expect(childEvents.some((e) => e.actions?.turnClose?.reason === "stopped")).toBe(true);

    const events = await allEvents(parent.id);
    const [call] = spawnCalls(events);
    const stop = events.find((e) => e.actions?.stateDelta?.stopChildren);
    expect(stop.actions.stateDelta.stopChildren).toEqual({ callIds: [call.content.callId] });
    const close = events.find((e) => e.actions?.turnClose);
    expect(close.seq).toBe(stop.seq + 1);
    // The call was answered once, by the stop; the child's later report appended nothing.
    expect(responsesTo(events, call.content.callId).map((e) => e.content.status)).toEqual(["interrupted"]);
    await waitForAcked(parent.id);
    expect(responsesTo(await allEvents(parent.id), call.content.callId)).toHaveLength(1);
  });
});

describe("sub-sessions meet the other features (docs/API.md#sub-sessions)", () => {
  it("a child of a session in a jurisdiction lives there, and its report reaches the parent", async () => {
    const parent = await createSession({ jurisdiction: "eu" });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: say hi" });
    await waitForSession(parent.id, (s) => s.status === "idle" && !s.openTurn, 25_000);
    const events = await allEvents(parent.id);
    const [call] = spawnCalls(events);
    const responses = responsesTo(events, call.content.callId);
    expect(responses.map((e) => e.content.status)).toEqual(["ok"]);
    const { sessionId: childId, status } = responses[0].content.response;
    expect(status).toBe("completed");
    const child = (await api(`/v1/sessions/${childId}`)).body;
    expect(child).toMatchObject({ parentId: parent.id, placement: { jurisdiction: "eu" }, openTurn: false });
    expect((await allEvents(childId)).filter((e) => e.actions?.stateDelta?.reportAcked)).toHaveLength(1);
  });

  it("the stop of a parent in a jurisdiction reaches its child: the child's turn closes stopped", async () => {
    const parent = await createSession({ jurisdiction: "eu", approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: wait for me" });
    await waitForSession(parent.id, (s) => s.status === "waiting");
    const [child] = await childrenOf(parent.id);
    await waitForSession(child.id, (s) => s.status === "waiting_approval");
    expect((await post(`/v1/sessions/${parent.id}/stop`)).status).toBe(200);
    await waitForSession(child.id, (s) => !s.openTurn);
    expect((await allEvents(child.id)).filter((e) => e.actions?.turnClose).map((e) => e.actions.turnClose)).toEqual([
      { reason: "stopped" },
    ]);
    await waitForAcked(parent.id);
  });

  it("a fork can spawn: it records its owner and directory like any session, and its child reports to it", async () => {
    const origin = await createSession();
    await post(`/v1/sessions/${origin.id}/messages`, { text: "hello" });
    const done = await waitForSession(origin.id, (s) => s.status === "idle", 25_000);
    const fork = await post(`/v1/sessions/${origin.id}/fork`, { throughSeq: done.highWater });
    expect(fork.status).toBe(201);
    await post(`/v1/sessions/${fork.body.id}/messages`, { text: "spawn: say hi" });
    await waitForSession(fork.body.id, (s) => s.status === "idle" && !s.openTurn, 25_000);
    const events = await allEvents(fork.body.id);
    const [call] = spawnCalls(events);
    const responses = responsesTo(events, call.content.callId);
    expect(responses.map((e) => [e.content.status, e.content.response.status])).toEqual([["ok", "completed"]]);
    const childId = responses[0].content.response.sessionId;
    expect((await childrenOf(fork.body.id)).map((c) => c.id)).toEqual([childId]);
    expect((await allEvents(childId))[0].actions.stateDelta.session.spawnedBy).toMatchObject({
      sessionId: fork.body.id,
      depth: 1,
    });
  });

  it("GET /runs shows the run that waits on its child as waiting, with the child's waitId", async () => {
    const parent = await createSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: keep a note" });
    const waiting = await waitForSession(parent.id, (s) => s.status === "waiting");
    const runs = (await api(`/v1/sessions/${parent.id}/runs`)).body.runs;
    expect(runs).toEqual([
      expect.objectContaining({ runId: waiting.wait.runId, state: "waiting", waitId: waiting.wait.waitId }),
    ]);
    expect(waiting.wait.waitId).toMatch(/^child:call_/);
  });

  it("a parent's stop of its child starts the run queued behind the child's turn", async () => {
    const parent = await createSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${parent.id}/messages`, { text: "spawn: hold on" });
    await waitForSession(parent.id, (s) => s.status === "waiting");
    const [child] = await childrenOf(parent.id);
    await waitForSession(child.id, (s) => s.status === "waiting_approval");
    const at = new Date(Date.now() + 1_000).toISOString();
    expect(
      (await post(`/v1/sessions/${child.id}/triggers`, { name: "tick", text: "tick", schedule: { at } })).status,
    ).toBe(201);
    const queued = await waitForRun(child.id, (r) => r.trigger === "tick" && r.state === "waiting");
    const [call] = spawnCalls(await allEvents(parent.id));

    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(child.id));
    const r = await stub.stopFromParent({ parentId: parent.id, callId: call.content.callId });
    // The stop closed the goal turn and the queued run opened the next one, before the answer.
    expect(r).toMatchObject({ ok: true, value: { openTurn: true } });
    const runs = (await api(`/v1/sessions/${child.id}/runs`)).body.runs;
    expect(runs.find((x: any) => x.runId === queued.runId)).toMatchObject({ trigger: "tick", state: "running" });
    const childEvents = await allEvents(child.id);
    expect(childEvents.filter((e) => e.actions?.turnClose).map((e) => e.actions.turnClose.reason)).toEqual(["stopped"]);
    expect(userTexts(childEvents).at(-1)).toMatchObject({ source: "trigger:tick", content: { text: "tick" } });
  });
});

describe("a stop that reaches a child before its create", () => {
  it("is acknowledged by barring the create: the child is never written and never runs", async () => {
    const parent = await createSession();
    const callId = "call_never_created";
    const id = env.SESSIONS.idFromName(`child:${parent.id}:${callId}`);
    const stub = env.SESSIONS.get(id);
    expect(await stub.stopFromParent({ parentId: parent.id, callId })).toEqual({ ok: true, value: null });
    const created = await stub.createChild({
      parentId: parent.id,
      callId,
      depth: 1,
      goal: "too late",
      options: {},
      model: MODEL,
      directoryId: env.DIRECTORY.idFromName("unused").toString(),
      principal: "p",
    });
    expect(created).toMatchObject({ ok: false, error: { code: "conflict" } });
    expectError(await api(`/v1/sessions/${id.toString()}`), 404, "not_found");
    // Written objects answer only for their own spawn: a session that is not a child is
    // not_found (never an acknowledgement) and changes nothing.
    const hw = (await api(`/v1/sessions/${parent.id}`)).body.highWater;
    expect(
      await env.SESSIONS.get(env.SESSIONS.idFromString(parent.id)).stopFromParent({ parentId: "x", callId }),
    ).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect((await api(`/v1/sessions/${parent.id}`)).body.highWater).toBe(hw);
  });
});

/** Until a run of the session fits `pred`. */
async function waitForRun(id: string, pred: (run: any) => boolean) {
  for (let i = 0; i < 400; i++) {
    const found = (await api(`/v1/sessions/${id}/runs`)).body.runs.find(pred);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no such run");
}

/** Until the parent recorded that its child acknowledged the stop. */
async function waitForAcked(id: string) {
  for (let i = 0; i < 400; i++) {
    if ((await allEvents(id)).some((e) => e.actions?.stateDelta?.childStopAcked)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("stop never acknowledged");
}
