import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settle, settledTo } from "../../do/drive";
import { allEvents, api, createSession, expectError, highWaterOf, OTHER_TOKEN, sleep } from "../../do/helpers";

/** docs/API.md §6 and §7.32: triggers, the runs they start, and GET /runs. */

const post = (path: string, json?: unknown, token?: string) =>
  api(path, { method: "POST", ...(json === undefined ? {} : { json }), ...(token ? { token } : {}) });
const del = (path: string, token?: string) => api(path, { method: "DELETE", ...(token ? { token } : {}) });
const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));
const alarmOf = (id: string) => runInDurableObject(stubOf(id), (_o, state) => state.storage.getAlarm());
const runsOf = async (id: string) => (await api(`/v1/sessions/${id}/runs`)).body.runs as any[];
const firedOf = (events: any[]) => events.filter((e) => e.actions?.stateDelta?.triggerFired);

/** Lets the clock pass `at` (the schedule is real time), then runs the object's alarm by hand. */
async function fireAfter(id: string, at: number) {
  const wait = at - Date.now() + 30;
  if (wait > 0) await sleep(wait);
  await runDurableObjectAlarm(stubOf(id));
}

/**
 * Drives slices until the Session satisfies `pred`. Unlike `settle`, it checks first: a session
 * with a trigger always holds an alarm, so "no alarm left" never means "done" here.
 */
async function driveUntil(id: string, pred: (s: any) => boolean): Promise<any> {
  for (let i = 0; i < 500; i++) {
    const s = (await api(`/v1/sessions/${id}`)).body;
    if (pred(s)) return s;
    await runDurableObjectAlarm(stubOf(id));
  }
  throw new Error(`session ${id} never reached the expected state`);
}

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

describe("trigger routes", () => {
  it("creates, lists and deletes triggers; each is an event in the log", async () => {
    const s = await createSession({ tools: [] });
    const hw = await highWaterOf(s.id);
    const every = await post(`/v1/sessions/${s.id}/triggers`, {
      name: "tick",
      text: "check",
      schedule: { everySeconds: 3600 },
    });
    expect(every.status).toBe(201);
    expect(every.body).toEqual({
      name: "tick",
      text: "check",
      schedule: { everySeconds: 3600 },
      nextAt: expect.any(String),
    });
    const cron = await post(`/v1/sessions/${s.id}/triggers`, {
      name: "noon",
      text: "lunch",
      schedule: { cron: "0 12 * * *" },
    });
    expect(cron.status).toBe(201);
    const noon = new Date(cron.body.nextAt);
    expect([noon.getUTCHours(), noon.getUTCMinutes(), noon.getUTCSeconds()]).toEqual([12, 0, 0]);
    expect(noon.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(noon.getTime()).toBeGreaterThan(Date.now());
    const at = inSeconds(3600);
    const once = await post(`/v1/sessions/${s.id}/triggers`, { name: "once", text: "go", schedule: { at } });
    expect(once.body.nextAt).toBe(at);

    const listed = (await api(`/v1/sessions/${s.id}/triggers`)).body.triggers;
    expect(listed.map((t: any) => t.name)).toEqual(["noon", "once", "tick"]);
    const events = (await allEvents(s.id)).filter((e) => e.seq > hw);
    expect(events.map((e) => e.actions?.stateDelta?.triggerCreated?.name)).toEqual(["tick", "noon", "once"]);
    expect(events.every((e) => e.modelVisibility === "hidden")).toBe(true);
    // The object's one alarm is at the earliest trigger due (idle: no lease).
    expect(await alarmOf(s.id)).toBe(Math.min(...listed.map((t: any) => Date.parse(t.nextAt))));

    const gone = await del(`/v1/sessions/${s.id}/triggers/tick`);
    expect(gone.status).toBe(204);
    expect((await api(`/v1/sessions/${s.id}/triggers`)).body.triggers.map((t: any) => t.name)).toEqual([
      "noon",
      "once",
    ]);
    expect((await allEvents(s.id)).at(-1).actions.stateDelta).toEqual({ triggerDeleted: { name: "tick" } });
    expectError(await del(`/v1/sessions/${s.id}/triggers/tick`), 404, "not_found");
  });

  it("bad schedules and names are 400, a duplicate name 409, unknown or foreign 404; none appends", async () => {
    const s = await createSession({ tools: [] });
    const path = `/v1/sessions/${s.id}/triggers`;
    expect((await post(path, { name: "dup", text: "x", schedule: { everySeconds: 60 } })).status).toBe(201);
    const hw = await highWaterOf(s.id);
    const bad = [
      { name: "a", text: "x", schedule: { everySeconds: 0 } },
      { name: "a", text: "x", schedule: { everySeconds: 1.5 } },
      { name: "a", text: "x", schedule: { everySeconds: "60" } },
      { name: "a", text: "x", schedule: { cron: "* * * *" } },
      { name: "a", text: "x", schedule: { cron: "* * * * * *" } },
      { name: "a", text: "x", schedule: { cron: "61 * * * *" } },
      { name: "a", text: "x", schedule: { cron: "not a cron" } },
      { name: "a", text: "x", schedule: { at: new Date(Date.now() - 60_000).toISOString() } },
      { name: "a", text: "x", schedule: { at: "2999-01-01T00:00:00+02:00" } },
      { name: "a", text: "x", schedule: { at: "tomorrow" } },
      { name: "a", text: "x", schedule: { everySeconds: 60, cron: "* * * * *" } },
      { name: "a", text: "x", schedule: {} },
      { name: "has space", text: "x", schedule: { everySeconds: 60 } },
      { name: "", text: "x", schedule: { everySeconds: 60 } },
      { name: "n".repeat(65), text: "x", schedule: { everySeconds: 60 } },
      { name: "a", text: "", schedule: { everySeconds: 60 } },
      { name: "a", schedule: { everySeconds: 60 } },
      { name: "a", text: "x", schedule: { everySeconds: 60 }, extra: true },
    ];
    for (const body of bad) expectError(await post(path, body), 400, "bad_request");
    expectError(await post(path, { name: "dup", text: "y", schedule: { cron: "* * * * *" } }), 409, "conflict");
    // 400 comes before 409 (docs/API.md §7.1).
    expectError(await post(path, { name: "dup", text: "y", schedule: { everySeconds: 0 } }), 400, "bad_request");
    expectError(await del(`${path}/nope`), 404, "not_found");
    expectError(await del(`${path}/bad%20name`), 404, "not_found");
    // The trigger is looked up before the body is read.
    expectError(await api(`${path}/nope`, { method: "DELETE", body: "{not json" }), 404, "not_found");
    expectError(await api(`${path}/dup`, { method: "DELETE", body: "{not json" }), 400, "bad_request");
    expectError(await api(`${path}/dup`), 405, "method_not_allowed");
    for (const r of [
      await post(path, { name: "b", text: "x", schedule: { everySeconds: 60 } }, OTHER_TOKEN),
      await api(path, { token: OTHER_TOKEN }),
      await del(`${path}/dup`, OTHER_TOKEN),
      await api(`/v1/sessions/${s.id}/runs`, { token: OTHER_TOKEN }),
    ])
      expectError(r, 404, "not_found");
    expect(await highWaterOf(s.id)).toBe(hw);
    expect((await api(path)).body.triggers.map((t: any) => t.name)).toEqual(["dup"]);
  });
});

describe("one alarm for lease and schedule", () => {
  it("a turn waiting for a human holds no lease: the alarm is the schedule's; with no trigger left, none", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    await post(`/v1/sessions/${s.id}/messages`, { text: "remember the milk" });
    await settledTo(s.id, (x) => x.status === "waiting_approval");
    expect(await alarmOf(s.id)).toBeNull();
    const t = await post(`/v1/sessions/${s.id}/triggers`, {
      name: "hourly",
      text: "x",
      schedule: { everySeconds: 3600 },
    });
    expect(await alarmOf(s.id)).toBe(Date.parse(t.body.nextAt));
    // Input joining the turn wants a slice now (the platform may take that alarm at once)...
    await post(`/v1/sessions/${s.id}/inbox`, { source: "ci", text: "also the eggs" });
    // The slice finds the turn still waiting for the decision: no lease, the schedule's alarm again.
    await runDurableObjectAlarm(stubOf(s.id));
    expect((await api(`/v1/sessions/${s.id}`)).body.status).toBe("waiting_approval");
    expect(await alarmOf(s.id)).toBe(Date.parse(t.body.nextAt));
    await post(`/v1/sessions/${s.id}/stop`);
    expect((await del(`/v1/sessions/${s.id}/triggers/hourly`)).status).toBe(204);
    expect(await alarmOf(s.id)).toBeNull();
  });
});

describe("scheduled runs", () => {
  it("a firing starts a run with source trigger:<name>; an `at` trigger is removed once fired", async () => {
    const s = await createSession({ tools: [] });
    const at = inSeconds(1);
    expect(
      (await post(`/v1/sessions/${s.id}/triggers`, { name: "once", text: "wake up", schedule: { at } })).status,
    ).toBe(201);
    await fireAfter(s.id, Date.parse(at));
    await settledTo(s.id, (x) => !x.openTurn && x.status === "idle");
    const events = await allEvents(s.id);
    const fired = firedOf(events);
    expect(fired).toHaveLength(1);
    const { runId } = fired[0].actions.stateDelta.triggerFired;
    expect(fired[0].actions.stateDelta.triggerFired).toEqual({ name: "once", runId, dueAt: at, disposition: "start" });
    const input = events.find((e) => e.author === "user" && e.content?.type === "text");
    expect(input).toMatchObject({ source: "trigger:once", runId, content: { text: "wake up" } });
    expect(input.seq).toBe(fired[0].seq + 1);
    expect((await api(`/v1/sessions/${s.id}/triggers`)).body.triggers).toEqual([]);
    expect(await runsOf(s.id)).toEqual([
      {
        runId,
        trigger: "once",
        state: "completed",
        outcome: "completed",
        startedAt: fired[0].at,
        endedAt: expect.any(String),
      },
    ]);
    // Fired once: running the alarm again appends nothing.
    const hw = await highWaterOf(s.id);
    await runDurableObjectAlarm(stubOf(s.id));
    expect(await highWaterOf(s.id)).toBe(hw);
  });

  it("a firing during an unfinished run of the same trigger is a skipped run; consecutive skips coalesce", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const created = await post(`/v1/sessions/${s.id}/triggers`, {
      name: "every",
      text: "remember the milk",
      schedule: { everySeconds: 1 },
    });
    await fireAfter(s.id, Date.parse(created.body.nextAt));
    await driveUntil(s.id, (x) => x.status === "waiting_approval");
    // The run waits for a human; two more periods pass, each firing is skipped.
    for (let i = 0; i < 2; i++) {
      const t = (await api(`/v1/sessions/${s.id}/triggers`)).body.triggers[0];
      await fireAfter(s.id, Date.parse(t.nextAt));
    }
    const runs = await runsOf(s.id);
    const events = await allEvents(s.id);
    const skips = firedOf(events).filter((e) => e.actions.stateDelta.triggerFired.disposition === "skip");
    expect(skips.length).toBeGreaterThanOrEqual(2);
    expect(runs).toEqual([
      {
        runId: skips[0].actions.stateDelta.triggerFired.runId,
        trigger: "every",
        state: "skipped",
        startedAt: skips[0].at,
        endedAt: skips.at(-1).at,
        count: skips.length,
      },
      { runId: expect.any(String), trigger: "every", state: "running", startedAt: expect.any(String) },
    ]);
    expect(new Set(skips.map((e) => e.actions.stateDelta.triggerFired.runId)).size).toBe(1);
    // A skip opened nothing: still one turn, still waiting for the same decision.
    expect(events.filter((e) => e.author === "user" && e.content?.type === "text")).toHaveLength(1);
    expect((await api(`/v1/sessions/${s.id}`)).body.status).toBe("waiting_approval");
    expect((await del(`/v1/sessions/${s.id}/triggers/every`)).status).toBe(204);
    await post(`/v1/sessions/${s.id}/stop`);
    const after = await runsOf(s.id);
    expect(after[1]).toMatchObject({ state: "completed", outcome: "stopped", endedAt: expect.any(String) });
  });

  it("a firing while another turn is open is queued (waiting) and starts when that turn closes", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const sent = await post(`/v1/sessions/${s.id}/messages`, { text: "remember the milk" });
    const waiting = await settledTo(s.id, (x) => x.status === "waiting_approval");
    const at = inSeconds(1);
    await post(`/v1/sessions/${s.id}/triggers`, { name: "later", text: "remember the eggs", schedule: { at } });
    await fireAfter(s.id, Date.parse(at));
    const queued = await runsOf(s.id);
    expect(queued.map((r) => [r.trigger, r.state])).toEqual([
      ["later", "waiting"],
      [null, "running"],
    ]);
    expect((await api(`/v1/sessions/${s.id}`)).body.pendingApprovals).toEqual(waiting.pendingApprovals);

    await post(`/v1/sessions/${s.id}/approvals/${waiting.pendingApprovals[0].requestId}`, { decision: "approve" });
    const next = await settledTo(s.id, (x) => x.status === "waiting_approval");
    expect(next.pendingApprovals[0].args.content).toContain("remember the eggs");
    const events = await allEvents(s.id);
    const close = events.find((e) => e.actions?.turnClose && e.turnId === sent.body.turnId);
    const input = events.find((e) => e.source === "trigger:later");
    expect(input.runId).toBe(queued[0].runId);
    expect(input.turnId).not.toBe(sent.body.turnId);
    expect(input.seq).toBeGreaterThan(close.seq);
    expect((await runsOf(s.id)).map((r) => [r.runId, r.trigger, r.state, r.outcome])).toEqual([
      [queued[0].runId, "later", "running", undefined],
      [queued[1].runId, null, "completed", "completed"],
    ]);
    await post(`/v1/sessions/${s.id}/stop`);
    await settle(s.id);
  });

  it("firings missed while nothing ran collapse into one, and the trigger keeps its phase", async () => {
    const s = await createSession({ tools: [] });
    const created = await post(`/v1/sessions/${s.id}/triggers`, {
      name: "beat",
      text: "ping",
      schedule: { everySeconds: 1 },
    });
    const first = Date.parse(created.body.nextAt);
    // Three periods pass with no alarm run by hand; the platform may run it meanwhile, so what
    // is checked is that no due time fired twice and that no alarm fired more than one at once.
    await sleep(first + 2_100 - Date.now());
    await runDurableObjectAlarm(stubOf(s.id));
    await driveUntil(s.id, (x) => !x.openTurn);
    const deleted = (await api(`/v1/sessions/${s.id}/triggers`)).body.triggers[0];
    await del(`/v1/sessions/${s.id}/triggers/beat`);
    const events = await allEvents(s.id);
    const fired = firedOf(events).map((e) => e.actions.stateDelta.triggerFired);
    const dues = fired.map((f) => f.dueAt);
    expect(new Set(dues).size).toBe(dues.length);
    expect(fired.length).toBeLessThanOrEqual(3);
    expect(fired.length).toBeGreaterThanOrEqual(1);
    for (const d of dues) expect((Date.parse(d) - first) % 1000).toBe(0);
    const t = deleted;
    expect(Date.parse(t.nextAt)).toBeGreaterThan(Date.parse(dues.at(-1)));
    expect((Date.parse(t.nextAt) - first) % 1000).toBe(0);
  });
});

describe("runs and waits", () => {
  it("a run held by a wait is `waiting` with its waitId; resumed, it completes", async () => {
    // The demo makes five model calls: a budget of 3 waits once, then the turn completes.
    const s = await createSession({ maxModelCallsPerTurn: 3 });
    await post(`/v1/sessions/${s.id}/inbox`, { source: "ops", text: "remember the milk" });
    const waiting = await settledTo(s.id, (x) => x.status === "waiting");
    const [run] = await runsOf(s.id);
    expect(run).toEqual({
      runId: waiting.wait.runId,
      trigger: null,
      state: "waiting",
      startedAt: expect.any(String),
      waitId: waiting.wait.waitId,
    });
    const r = await post(`/v1/sessions/${s.id}/runs/${run.runId}/resume`, { waitId: waiting.wait.waitId });
    expect(r.status).toBe(202);
    await settledTo(s.id, (x) => !x.openTurn);
    const { waitId: _w, ...started } = run;
    expect(await runsOf(s.id)).toEqual([
      { ...started, state: "completed", outcome: "completed", endedAt: expect.any(String) },
    ]);
  });
});
