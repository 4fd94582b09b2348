/**
 * Waits across a crash (docs/API.md §6, §7.12): a real `wrangler dev` is killed with SIGKILL while a
 * `wait_for` and a budget wait are pending, started again on the same state, and each wait is
 * still there (no recovery, no notice); a resume then completes each task.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi, type Event } from "./harness/api";
import { type FakeOpenAI, messageText, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "e2e-token";
const WAIT_TASK = "Wait for the deploy, then report.";
const BUDGET_TASK = "List the workspace three times, then say done.";

// biome-ignore lint/suspicious/noExplicitAny: Session.wait is newer than the harness's Session type
type AnySession = any;

async function until(api: Api, id: string, pred: (s: AnySession) => boolean, timeoutMs = 60_000) {
  const start = Date.now();
  for (;;) {
    const s = await api.getSession(id);
    if (pred(s)) return s as AnySession;
    if (Date.now() - start > timeoutMs) throw new Error(`timeout; last: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("waits survive kill -9", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI(
      scriptedAgent((step, ctx) => {
        if (ctx.lastUserText === WAIT_TASK)
          return step === 0
            ? { toolCalls: [{ name: "wait_for", args: { reason: "the deploy" } }] }
            : { text: `report: ${messageText(ctx.toolResults[0])}` };
        return step < 3 ? { toolCalls: [{ name: "list_files", args: {} }] } : { text: "done" };
      }),
    );
    persistTo = makePersistDir();
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: fake.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake-model",
      },
    });
    api = createApi(worker.url, TOKEN);
  });

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  it("a wait_for and a budget wait are kept by a restart and complete after a resume", async () => {
    const waiting = await api.createSession({});
    const budgeted = await api.createSession({ maxModelCallsPerTurn: 2 } as never);
    await api.sendMessage(waiting.id, WAIT_TASK);
    await api.sendMessage(budgeted.id, BUDGET_TASK);
    const w1 = await until(api, waiting.id, (s) => s.status === "waiting");
    const b1 = await until(api, budgeted.id, (s) => s.status === "waiting");
    expect(w1.wait).toMatchObject({ kind: "wait_for", reason: "the deploy" });
    expect(b1.wait).toMatchObject({ kind: "budget", modelCalls: 2 });
    const requestsBefore = fake.chatRequests().length;

    worker = await restartWrangler(worker);
    api = createApi(worker.url, TOKEN);

    const w2 = await until(api, waiting.id, (s) => s.status === "waiting");
    const b2 = await until(api, budgeted.id, (s) => s.status === "waiting");
    expect(w2).toMatchObject({ highWater: w1.highWater, wait: w1.wait, recoveryNotice: null });
    expect(b2).toMatchObject({ highWater: b1.highWater, wait: b1.wait, recoveryNotice: null });
    expect(fake.chatRequests().length).toBe(requestsBefore);

    const resume = (s: AnySession, text?: string) =>
      api.raw("POST", `/v1/sessions/${s.id}/runs/${s.wait.runId}/resume`, {
        waitId: s.wait.waitId,
        ...(text === undefined ? {} : { text }),
      });
    const stale = await api.raw("POST", `/v1/sessions/${w2.id}/runs/${w2.wait.runId}/resume`, { waitId: "wait:x" });
    expect(stale.status).toBe(409);
    expect((await resume(w2, "deployed v42")).status).toBe(202);
    expect((await resume(b2)).status).toBe(202);

    const w3 = await until(api, waiting.id, (s) => !s.openTurn);
    const b3 = await until(api, budgeted.id, (s) => !s.openTurn);
    expect(w3).toMatchObject({ status: "idle", wait: null });
    expect(b3).toMatchObject({ status: "idle", wait: null });

    const wEvents: Event[] = await api.allEvents(waiting.id);
    const bEvents: Event[] = await api.allEvents(budgeted.id);
    for (const events of [wEvents, bEvents]) {
      expect(events.at(-1)?.actions?.turnClose).toEqual({ reason: "completed" });
      expect(events.some((e) => e.actions?.stateDelta?.runStarted || e.actions?.toolRecovery)).toBe(false);
    }
    const answer = wEvents.findLast((e) => e.author === "model");
    expect(JSON.stringify(answer?.content)).toContain("deployed v42");
    expect(bEvents.filter((e) => e.actions?.modelRequest)).toHaveLength(4);
    expect((await api.verify(waiting.id)).ok).toBe(true);
    expect((await api.verify(budgeted.id)).ok).toBe(true);
  });
});
