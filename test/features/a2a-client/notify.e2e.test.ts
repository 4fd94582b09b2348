/**
 * Push notifications and exact wait correlation (docs/API.md#a2a-agents), end to end: the test
 * posts to `POST /v1/a2a/notify/<token>` as the agent would (v1.0 `StreamResponse` JSON built
 * with `@a2a-js/sdk`), with the token the agent received. Only that token and that task release
 * the wait; a forged token, a foreign task, an ordinary message, an inbox event, a resume or a
 * replayed notification release nothing and append nothing. A result after a stop is a late
 * result: recorded once, reopening nothing.
 */
import { StreamResponse, Task } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { remoteTaskOf, responseOf, type Stack, stackCases, waitOf } from "./support";

// Each case runs on its own stack (agent, model, wrangler), closed whatever its outcome: the cases
// are independent, and run two at a time.
const withStack = stackCases(2);

const completedBody = (taskId: string, contextId: string, text: string) =>
  JSON.stringify(
    StreamResponse.toJSON({
      payload: {
        $case: "task",
        value: Task.fromJSON({
          id: taskId,
          contextId,
          status: { state: "TASK_STATE_COMPLETED" },
          artifacts: [{ artifactId: "a", parts: [{ text }] }],
        }),
      },
    }),
  );

function notify(s: Stack, token: string, body: string) {
  return fetch(`${s.worker.url}/v1/a2a/notify/${token}`, {
    method: "POST",
    headers: { "content-type": "application/a2a+json" },
    body,
  });
}

const tokenOf = (url: string | undefined) => url!.split("/v1/a2a/notify/")[1]!;

describe.concurrent("A2A notifications release only their own wait", () => {
  it(
    "forged, foreign, ordinary and inbox input release nothing; the task's own notification does, once",
    withStack({ push: true }, async (stack) => {
      const { api, agent } = stack;
      const session = await api.createSession({ title: "correlation" });
      await api.sendMessage(session.id, "check the build");
      const send = await agent.waitForSend();
      const token = tokenOf(send.notify?.url);
      expect(send.notify?.token).toBe(token);
      const waiting = await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      const record = remoteTaskOf(waiting.events)!;
      const head = waiting.session.highWater;
      const stillWaiting = async () => {
        const s = await api.getSession(session.id);
        expect(waitOf(s)).toMatchObject({ kind: "remote", waitId: record.waitId });
        expect(responseOf(await api.allEvents(session.id))).toBeUndefined();
        return s;
      };

      // A forged token (well formed, never issued): 404, nothing appended.
      const forged = await notify(stack, `${session.id}.${"Z".repeat(32)}`, completedBody(send.taskId!, "", "forged"));
      expect(forged.status).toBe(404);
      // A malformed token: 401.
      expect((await notify(stack, "garbage", "{}")).status).toBe(401);
      // The right token naming another task: 404.
      const foreign = await notify(stack, token, completedBody("some-other-task", "", "not yours"));
      expect(foreign.status).toBe(404);
      expect((await stillWaiting()).highWater).toBe(head);

      // An ordinary message joins the turn; an inbox event arrives; a resume of the remote wait is refused.
      await api.sendMessage(session.id, "any news?");
      const inbox = await api.raw("POST", `/v1/sessions/${session.id}/inbox`, { source: "ci", text: "build finished" });
      expect(inbox.status).toBeLessThan(300);
      const resume = await api.raw("POST", `/v1/sessions/${session.id}/runs/${waitOf(waiting.session)!.runId}/resume`, {
        waitId: record.waitId,
        text: "go on",
      });
      expect(resume.status).toBe(409);
      await stillWaiting();

      // The task's own notification: recorded at once, paired with the dispatch.
      const own = await notify(stack, token, completedBody(send.taskId!, "", "build is green"));
      expect(own.status).toBe(200);
      expect(await own.json()).toEqual({ recorded: true });
      const events = await api.allEvents(session.id);
      const response = responseOf(events, record.callId)!;
      expect(response.content).toMatchObject({
        status: "ok",
        response: { taskId: send.taskId, text: "build is green" },
      });
      expect(response.actions?.stateDelta?.remoteResult).toEqual({ taskId: send.taskId, state: "completed" });

      // A replay of the same notification: the token is spent with its wait.
      const before = (await api.getSession(session.id)).highWater;
      const replay = await notify(stack, token, completedBody(send.taskId!, "", "again"));
      expect(replay.status).toBe(404);
      const done = await api.waitForIdle(session.id);
      expect(done.events.filter((e) => e.content?.type === "functionResponse")).toHaveLength(1);
      expect(done.events.some((e) => e.seq > before && e.content?.type === "functionResponse")).toBe(false);
      expect((await api.verify(session.id)).ok).toBe(true);
    }),
    420_000,
  );

  it(
    "a result after a stop is a late result: recorded once as a note, nothing reopened",
    withStack({ push: true, uncancelable: true }, async (stack) => {
      const { api, agent } = stack;
      const session = await api.createSession({ title: "late" });
      await api.sendMessage(session.id, "long job");
      const send = await agent.waitForSend();
      const token = tokenOf(send.notify?.url);
      await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      const stopped = await api.stop(session.id);
      expect(stopped.openTurn).toBe(false);
      // The stop tried to cancel the task (the agent refused).
      expect(agent.cancels).toEqual([send.taskId]);
      const afterStop = await api.allEvents(session.id);
      expect(responseOf(afterStop)?.content).toMatchObject({ status: "interrupted" });

      const late = await notify(stack, token, completedBody(send.taskId!, "", "finished anyway"));
      expect(late.status).toBe(200);
      expect(await late.json()).toEqual({ recorded: true });
      const s = await api.getSession(session.id);
      expect(s.openTurn).toBe(false);
      expect(s.status).toBe("idle");
      const events = await api.allEvents(session.id);
      const lateEvent = events.find((e) => e.actions?.stateDelta?.lateResult)!;
      expect(lateEvent.actions?.stateDelta?.lateResult).toMatchObject({
        callId: remoteTaskOf(events)!.callId,
        taskId: send.taskId,
        state: "completed",
        response: { text: "finished anyway" },
      });
      expect(lateEvent.modelVisibility).toBe("hidden");
      // Nothing overwritten: the call's one response is still the stop's.
      expect(events.filter((e) => e.content?.type === "functionResponse")).toHaveLength(1);
      const transcript = (await api.transcript(session.id)).items as { kind: string; text?: string }[];
      expect(transcript.find((i) => i.kind === "note")?.text).toContain("finished anyway");
      // Once only.
      expect((await notify(stack, token, completedBody(send.taskId!, "", "again"))).status).toBe(404);
      expect((await api.getSession(session.id)).highWater).toBe(s.highWater);
    }),
    420_000,
  );
});
