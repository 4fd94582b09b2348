/**
 * The A2A client's tool against a fake agent built on `@a2a-js/sdk`'s server (docs/API.md#a2a-agents):
 * the send carries the call's idempotency key as `messageId` and the notification URL, answers
 * with the task to wait for; the port polls and cancels it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentsRecord, agentTools } from "../../../src/features/a2a-client/agents";
import type { ToolContext, ToolDefinition } from "../../../src/tools/types";
import { type FakeA2aAgent, startFakeA2aAgent } from "../../fakes/a2a-agent";

let agent: FakeA2aAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

function ctxFor(env: Record<string, unknown>, key = "hw_0123456789abcdef0123456789abcdef"): ToolContext {
  return {
    sessionId: "s",
    callId: "c1",
    idempotencyKey: key,
    signal: AbortSignal.timeout(10_000),
    sql: undefined as never,
    blobs: undefined as never,
    httpAllowedHosts: [],
    fetch: (i, init) => fetch(i, init),
    env,
    secret: (n) => (typeof env[n] === "string" ? (env[n] as string) : undefined),
    remote: { waitId: "remote:c1:abcd", notifyToken: `${"a".repeat(64)}.${"b".repeat(32)}` },
  };
}

function toolOf(env: Record<string, unknown>): ToolDefinition<unknown> {
  const config = JSON.parse(String(env.A2A_AGENTS)) as { name: string; effect?: "write" | "idempotent" }[];
  const record = agentsRecord(config.map((a) => ({ name: a.name, url: "", headers: {}, effect: a.effect ?? "write" })));
  return agentTools(record)[0]!;
}

describe("the <agent>__send tool over @a2a-js/sdk", () => {
  it("sends with the idempotency key as messageId, then polls the task to its answer", async () => {
    agent = await startFakeA2aAgent({ push: false });
    const env = {
      A2A_AGENTS: JSON.stringify([
        { name: "helper", url: agent.cardUrl, headers: { "x-key": "{{secret:HELPER_KEY}}" } },
      ]),
      HELPER_KEY: "secret-value-123",
      PUBLIC_URL: "https://hw.example/",
    };
    const tool = toolOf(env);
    expect(tool.name).toBe("helper__send");
    expect(tool.effect({ text: "x" })).toBe("write");
    const ctx = ctxFor(env);
    const sent = await tool.run({ text: "summarise the report" }, ctx);
    expect(sent.remoteTask?.target).toEqual({ agent: "helper" });
    const taskId = sent.remoteTask!.taskId;
    expect(agent.sends).toHaveLength(1);
    expect(agent.sends[0]).toMatchObject({ messageId: ctx.idempotencyKey, text: "summarise the report", taskId });
    expect(agent.sends[0]!.notify?.url).toBe(`https://hw.example/v1/a2a/notify/${ctx.remote!.notifyToken}`);
    expect(agent.sends[0]!.headers["x-key"]).toBe("secret-value-123");
    expect(await tool.remote!.poll(taskId, ctx)).toMatchObject({ taskId, state: "working" });
    agent.complete(taskId, "the summary");
    expect(await tool.remote!.poll(taskId, ctx)).toMatchObject({
      taskId,
      state: "completed",
      response: { taskId, text: "the summary" },
    });
    expect(agent.polls.get(taskId)).toBe(2);
  });

  it("a repeated send with the same messageId gets the same task; cancel ends it", async () => {
    agent = await startFakeA2aAgent({ push: false });
    const env = { A2A_AGENTS: JSON.stringify([{ name: "helper", url: agent.cardUrl, effect: "idempotent" }]) };
    const tool = toolOf(env);
    const first = await tool.run({ text: "go" }, ctxFor(env));
    const again = await tool.run({ text: "go" }, ctxFor(env));
    expect(again.remoteTask?.taskId).toBe(first.remoteTask?.taskId);
    expect(agent.tasks()).toHaveLength(1);
    const cancelled = await tool.remote!.cancel(first.remoteTask!.taskId, ctxFor(env));
    expect(cancelled?.state).toBe("cancelled");
    expect(agent.cancels).toEqual([first.remoteTask!.taskId]);
  });

  it("a failed task answers remote_failed when polled", async () => {
    agent = await startFakeA2aAgent({ push: false });
    const env = { A2A_AGENTS: JSON.stringify([{ name: "helper", url: agent.cardUrl }]) };
    const tool = toolOf(env);
    const sent = await tool.run({ text: "go" }, ctxFor(env));
    agent.fail(sent.remoteTask!.taskId, "out of paper");
    expect(await tool.remote!.poll(sent.remoteTask!.taskId, ctxFor(env))).toMatchObject({
      state: "failed",
      message: "out of paper",
    });
  });

  it("a task that asks for input gets the answer on the same task, then goes on", async () => {
    agent = await startFakeA2aAgent({ push: false });
    const env = { A2A_AGENTS: JSON.stringify([{ name: "helper", url: agent.cardUrl }]) };
    const tool = toolOf(env);
    const sent = await tool.run({ text: "book a room" }, ctxFor(env));
    const taskId = sent.remoteTask!.taskId;
    agent.ask(taskId, "which day?");
    expect(await tool.remote!.poll(taskId, ctxFor(env))).toMatchObject({
      state: "input-required",
      message: "which day?",
    });
    const after = await tool.remote!.reply!(taskId, "Tuesday", "hw_answer_1", ctxFor(env));
    expect(after).toMatchObject({ taskId, state: "working" });
    expect(agent.replies).toEqual([{ taskId, text: "Tuesday" }]);
    expect(agent.tasks()).toEqual([taskId]);
    agent.complete(taskId, "booked for Tuesday");
    // The agent stores the completion on its own time: poll until it says so, as the runtime does.
    let status = await tool.remote!.poll(taskId, ctxFor(env));
    for (let i = 0; i < 100 && status.state === "working"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await tool.remote!.poll(taskId, ctxFor(env));
    }
    expect(status).toMatchObject({ state: "completed", response: { text: "booked for Tuesday" } });
  });
});
