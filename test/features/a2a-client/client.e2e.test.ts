/**
 * The A2A client end to end (docs/API.md#a2a-agents): a real `wrangler dev`, a fake agent on
 * `@a2a-js/sdk`'s server. The call dispatches, sends, records the task and waits
 * (`wait.kind: "remote"`); polling from the alarm learns the outcome, which is the call's response.
 */
import { describe, expect, it } from "vitest";
import { remoteTaskOf, responseOf, stackCases, waitOf } from "./support";

// Each case runs on its own stack (agent, model, wrangler), closed whatever its outcome: the cases
// are independent, and run two at a time.
const withStack = stackCases(2);

describe.concurrent("A2A client: a call answered by a remote task", () => {
  it(
    "dispatches, sends, waits for the task, and pairs its outcome with the dispatch",
    withStack(undefined, async (stack) => {
      const { api, agent } = stack;
      const session = await api.createSession({ title: "a2a happy path" });
      await api.sendMessage(session.id, "summarise the quarter");
      const send = await agent.waitForSend();
      expect(send.text).toBe("ask: summarise the quarter");
      const waiting = await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      expect(waiting.session.status).toBe("waiting");
      const dispatch = waiting.events.find((e) => e.actions?.toolDispatch)?.actions?.toolDispatch as {
        callId: string;
        effect: string;
        idempotencyKey: string;
      };
      expect(dispatch.effect).toBe("write");
      // The call's idempotency key is the A2A messageId.
      expect(send.messageId).toBe(dispatch.idempotencyKey);
      const record = remoteTaskOf(waiting.events)!;
      expect(record).toMatchObject({ callId: dispatch.callId, agent: "helper", taskId: send.taskId });
      expect(waitOf(waiting.session)).toMatchObject({ kind: "remote", waitId: record.waitId });
      // Polled while working: nothing is appended.
      await api.waitFor(session.id, () => (agent.polls.get(send.taskId!) ?? 0) >= 1);
      agent.complete(send.taskId!, "revenue up 12%");
      const done = await api.waitForIdle(session.id);
      const response = responseOf(done.events, dispatch.callId)!;
      expect(response.content).toMatchObject({
        type: "functionResponse",
        callId: dispatch.callId,
        status: "ok",
        response: { taskId: send.taskId, text: "revenue up 12%" },
      });
      expect(response.actions?.stateDelta?.remoteResult).toEqual({ taskId: send.taskId, state: "completed" });
      const answer = done.events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1);
      expect((answer!.content as { text: string }).text).toContain("revenue up 12%");
      expect(agent.sends).toHaveLength(1);
      expect((await api.verify(session.id)).ok).toBe(true);
    }),
    420_000,
  );

  it(
    "a failed remote task answers error remote_failed",
    withStack(undefined, async (stack) => {
      const { api, agent } = stack;
      const session = await api.createSession({});
      await api.sendMessage(session.id, "print it");
      const send = await agent.waitForSend();
      await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      agent.fail(send.taskId!, "out of paper");
      const done = await api.waitForIdle(session.id);
      expect(responseOf(done.events)?.content).toMatchObject({
        status: "error",
        response: { code: "remote_failed", message: "out of paper" },
      });
    }),
    420_000,
  );

  it(
    "a task that asks for input: the wait shows the question, the user's next message goes to the same task",
    withStack(undefined, async (stack) => {
      const { api, agent } = stack;
      const session = await api.createSession({ title: "input required" });
      await api.sendMessage(session.id, "book a room");
      const send = await agent.waitForSend();
      await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      agent.ask(send.taskId!, "which day?");
      const asked = await api.waitFor(session.id, (s) => waitOf(s)?.reason === "which day?");
      expect(asked.session.status).toBe("waiting");
      expect(asked.events.some((e) => e.actions?.stateDelta?.remoteInput)).toBe(true);
      await api.sendMessage(session.id, "Tuesday");
      await api.waitFor(session.id, () => agent.replies.length === 1);
      expect(agent.replies).toEqual([{ taskId: send.taskId, text: "Tuesday" }]);
      // Answered: the call still waits for the same task, no longer asking.
      const answered = await api.waitFor(
        session.id,
        (s, events) =>
          waitOf(s)?.kind === "remote" &&
          waitOf(s)?.reason === undefined &&
          events.some((e) => e.actions?.stateDelta?.remoteReply),
      );
      expect(responseOf(answered.events)).toBeUndefined();
      agent.complete(send.taskId!, "booked for Tuesday");
      const done = await api.waitForIdle(session.id);
      expect(responseOf(done.events)?.content).toMatchObject({
        status: "ok",
        response: { text: "booked for Tuesday" },
      });
      expect(agent.tasks()).toEqual([send.taskId]);
      expect((await api.verify(session.id)).ok).toBe(true);
    }),
    420_000,
  );
});
