/**
 * Sub-session crash cases (docs/API.md §3, §6, §7.31) with a real `wrangler dev`, the built-in demo
 * model ("spawn: <goal>" makes it call spawn_session) and kill -9 of the whole process group at
 * a failpoint, then a restart on the same persist dir with no failpoint and no request. Every
 * case must end with exactly one child (one goal message), exactly one response to the spawn
 * in the parent, the report acknowledged once, and both logs verifying.
 *
 * - F4: spawn T1 committed, the child not created yet.
 * - F12: spawn T1 committed and the child created (its goal sent), nothing more in the parent.
 * - F13: the child is running (its first tool dispatched); the parent waits, evicted.
 * - F14: the parent appended the child's report; the child never heard the acknowledgement.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "../../e2e/crash/run-case";
import { type Api, createApi, describeEvent, type Event, type Session } from "../../e2e/harness/api";
import {
  makePersistDir,
  restartWrangler,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../../e2e/harness/wrangler";

const TOKEN = "crash-children-token";
const GOAL = "write down the plan";

type Case = { failpoint: "F4" | "F12" | "F13" | "F14"; what: string };
const CASES: Case[] = [
  { failpoint: "F4", what: "kill between spawn T1 and the child's create" },
  { failpoint: "F12", what: "kill between spawn T1 and T2, the child created" },
  { failpoint: "F13", what: "kill while the child runs" },
  { failpoint: "F14", what: "kill of the parent while the child reports" },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The cases are independent (each its own persist dir, sink and wrangler): two at a time, like the other crash files.
const withSlot = limiter(2);

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const spawnCalls = (events: Event[]) =>
  events.filter((e) => e.content?.type === "functionCall" && e.content.name === "spawn_session");
const responsesTo = (events: Event[], callId: string) =>
  events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === callId);

describe.concurrent("spawn_session survives kill -9", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const f of cleanup.reverse()) await f().catch(() => undefined);
  });

  for (const c of CASES)
    it(`${c.failpoint}: ${c.what} → one child, one response`, () => withSlot(() => runCase(c)), 600_000);

  async function runCase(c: Case): Promise<void> {
    const persistTo = makePersistDir("hw-children-");
    const sink = await startFailpointSink();
    cleanup.push(async () => {
      await sink.close();
      rmSync(persistTo, { recursive: true, force: true });
    });
    let worker: Wrangler = await startWrangler({
      persistTo,
      vars: { API_TOKENS: TOKEN, HW_FAILPOINT: c.failpoint, HW_FAILPOINT_URL: sink.url },
    });
    cleanup.push(() => worker.stop());
    let api: Api = createApi(worker.url, TOKEN);
    const parent = await api.createSession({ title: `crash ${c.failpoint}` });
    await api.sendMessage(parent.id, `spawn: ${GOAL}`);
    await sink.waitFor(c.failpoint, 90_000);
    await worker.kill9();

    worker = await restartWrangler(worker, { dropVars: ["HW_FAILPOINT", "HW_FAILPOINT_URL"] });
    api = createApi(worker.url, TOKEN);
    // No request drives anything: alarms (and the child's report) do.
    const final = await until("the parent to close its turn", async () => {
      const events = await api.allEvents(parent.id);
      return events.some((e) => e.actions?.turnClose) ? events : null;
    });
    const show = () =>
      `parent:\n${final.map(describeEvent).join("\n")}\n--- wrangler ---\n${worker.logs().slice(-3000)}`;
    expect(
      final.filter((e) => e.actions?.turnClose).map((e) => e.actions?.turnClose?.reason),
      show(),
    ).toEqual(["completed"]);
    const calls = spawnCalls(final);
    expect(calls, show()).toHaveLength(1);
    const callId = (calls[0]!.content as { callId: string }).callId;
    expect(final.filter((e) => e.actions?.toolDispatch?.callId === callId)).toHaveLength(1);
    const responses = responsesTo(final, callId);
    expect(responses, show()).toHaveLength(1);
    const response = responses[0]!.content as { status: string; response: { sessionId: string; status: string } };
    expect(response.status, show()).toBe("ok");
    expect(response.response.status).toBe("completed");
    // Waiting for a child is not a recovery: no toolRecovery and no notice in the parent.
    expect(final.some((e) => e.actions?.toolRecovery?.callId === callId)).toBe(false);
    expect(final.some((e) => e.actions?.stateDelta?.recoveryNotice)).toBe(false);

    const listed = (await api.listSessions("?limit=100")).sessions.filter((s: Session) => s.parentId === parent.id);
    expect(listed.map((s) => s.id)).toEqual([response.response.sessionId]);
    const childId = response.response.sessionId;
    const child = await until("the child's report to be acknowledged", async () => {
      const events = await api.allEvents(childId);
      return events.some((e) => e.actions?.stateDelta?.reportAcked) ? events : null;
    });
    const goals = child.filter((e) => e.author === "user" && e.content?.type === "text");
    expect(goals.map((e) => (e.content as { text: string }).text)).toEqual([GOAL]);
    expect(child.filter((e) => e.actions?.stateDelta?.reportAcked)).toHaveLength(1);
    expect((await api.verify(parent.id)).ok).toBe(true);
    expect((await api.verify(childId)).ok).toBe(true);
    await worker.stop();
  }
});
