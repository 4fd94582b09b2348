/**
 * MCP tasks (docs/API.md#mcp-tasks): a tool its server runs as a task is called task-augmented;
 * the session waits (`wait.kind: "remote"`) while `tasks/get` is polled from the alarm, the call's
 * response is the task's result (`tasks/result`), and the tool was called once. A stop while
 * waiting sends `tasks/cancel`. A tool without task support is called as before.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import type { ModelConfig } from "../../../src/model/types";
import { sessionWait } from "../../../src/projections";
import { McpHub, parseMcpServers } from "../../../src/tools/mcp";
import { type Step, scriptedProvider, withSession } from "../../do/context-harness";
import { mcpTaskServer } from "../../fakes/mcp-task-server";
import { CONFIRM_FORM } from "../../fakes/mcp2-server";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };

function hubOver(route: typeof fetch) {
  const cfg = parseMcpServers(JSON.stringify([{ name: "jobs", url: "http://jobs.mcp.test/mcp" }]));
  if (!cfg.ok) throw new Error(cfg.message);
  return () => new McpHub(cfg.servers, { fetch: route, secret: () => undefined, now: () => 0 });
}

const script = (steps: Step[]) => scriptedProvider({ next: (_r, n) => steps[n] ?? { kind: "answer", text: "done" } });
const responses = (events: Event[]) =>
  events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));
const remoteTaskOf = (events: Event[]) =>
  events.find((e) => e.actions?.stateDelta?.remoteTask)?.actions?.stateDelta?.remoteTask;

describe("MCP tasks", () => {
  it("a call answered with a task waits for it and answers with its result; called once", async () => {
    const server = mcpTaskServer();
    let clock = 1_000_000;
    const provider = script([
      { kind: "call", name: "jobs__report", args: {} },
      { kind: "call", name: "jobs__quick", args: {} },
      { kind: "answer", text: "both done" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch), now: () => clock }, async (h) => {
      await h.runtime.postMessage({ text: "make the report", source: "http" });
      for (let i = 0; sessionWait(h.runtime.summary!)?.kind !== "remote"; i++) {
        if (i > 20) throw new Error("no remote wait");
        await h.runtime.alarm();
      }
      expect(remoteTaskOf(h.events())).toMatchObject({
        server: "jobs",
        taskId: "task-1",
        callId: expect.any(String),
        deadline: clock + 3_600_000,
      });
      // Polled while working: still waiting.
      clock += 2_000;
      await h.runtime.alarm();
      expect(sessionWait(h.runtime.summary!)?.kind).toBe("remote");
      expect(server.requests).toContain("tasks/get");
      server.complete("task-1", "the report");
      for (let i = 0; h.runtime.summary?.openTurn; i++) {
        if (i > 30) throw new Error("the turn did not close");
        clock += 10_000;
        await h.runtime.alarm();
      }
      const events = h.events();
      expect(responses(events).map((r) => [r.name, r.status, r.response])).toEqual([
        ["jobs__report", "ok", "the report"],
        ["jobs__quick", "ok", "quick done"],
      ]);
      expect(server.calls.map((c) => [c.tool, c.task])).toEqual([
        ["report", true],
        ["quick", false],
      ]);
      expect(server.requests).toContain("tasks/result");
    });
  });

  it("a stop while waiting sends tasks/cancel", async () => {
    const server = mcpTaskServer();
    let clock = 1_000_000;
    const provider = script([{ kind: "call", name: "jobs__report", args: {} }]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch), now: () => clock }, async (h) => {
      await h.runtime.postMessage({ text: "make the report", source: "http" });
      for (let i = 0; sessionWait(h.runtime.summary!)?.kind !== "remote"; i++) {
        if (i > 20) throw new Error("no remote wait");
        await h.runtime.alarm();
      }
      clock += 1;
      h.runtime.stop();
      await h.runtime.settled();
      expect(server.requests).toContain("tasks/cancel");
      expect(server.tasks.get("task-1")?.status).toBe("cancelled");
      expect(server.calls).toHaveLength(1);
    });
  });

  it("after a restart the same task is polled and the tool is never called again; past timeoutMs the call times out", async () => {
    const server = mcpTaskServer();
    let clock = 1_000_000;
    const provider = script([
      { kind: "call", name: "jobs__report", args: {} },
      { kind: "call", name: "jobs__report", args: {} },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch), now: () => clock }, async (h) => {
      await h.runtime.postMessage({ text: "make the report", source: "http" });
      for (let i = 0; sessionWait(h.runtime.summary!)?.kind !== "remote"; i++) {
        if (i > 20) throw new Error("no remote wait");
        await h.runtime.alarm();
      }
      const fresh = h.reopen();
      server.complete("task-1", "the report");
      for (let i = 0; sessionWait(fresh.summary!)?.kind === "remote"; i++) {
        if (i > 20) throw new Error("still waiting");
        clock += 10_000;
        await fresh.alarm();
      }
      expect(responses(h.events())[0]).toMatchObject({ name: "jobs__report", status: "ok", response: "the report" });
      expect(server.calls).toHaveLength(1);
      // The model calls it again; this task never ends: an hour later the call is remote_timeout, the task cancelled.
      for (let i = 0; sessionWait(fresh.summary!)?.kind !== "remote"; i++) {
        if (i > 20) throw new Error("no second remote wait");
        await fresh.alarm();
      }
      clock += 3_600_000;
      for (let i = 0; sessionWait(fresh.summary!)?.kind === "remote"; i++) {
        if (i > 5) throw new Error("the deadline did not end the wait");
        await fresh.alarm();
      }
      expect(responses(h.events())[1]).toMatchObject({
        name: "jobs__report",
        status: "error",
        response: { code: "remote_timeout", taskId: "task-2" },
      });
      expect(server.tasks.get("task-2")?.status).toBe("cancelled");
      expect(server.calls).toHaveLength(2);
    });
  });

  it("a task's own question (input_required) is the session's durable question; after a restart its answer reaches the task once", async () => {
    const server = mcpTaskServer();
    let clock = 1_000_000;
    const provider = script([{ kind: "call", name: "jobs__approve", args: {} }]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch), now: () => clock }, async (h) => {
      await h.runtime.postMessage({ text: "approve it", source: "http" });
      for (let i = 0; h.runtime.session().status !== "waiting_input"; i++) {
        if (i > 20) throw new Error("no question");
        clock += 10_000;
        await h.runtime.alarm();
      }
      const [pending, ...others] = h.runtime.session().pendingInputs;
      expect(others).toEqual([]);
      expect(pending).toEqual({
        requestId: expect.stringMatching(/^inp_[0-9a-f]{24}$/),
        callId: expect.any(String),
        server: "jobs",
        message: "Approve task-1?",
        schema: CONFIRM_FORM,
      });
      const asked = () => h.events().filter((e) => e.actions?.stateDelta?.inputRequested);
      expect(asked()[0]!.actions!.stateDelta!.inputRequested).toMatchObject({ taskId: "task-1" });
      // Polled again while unanswered: the same question, not recorded twice, and nothing answered.
      clock += 10_000;
      await h.runtime.alarm();
      expect(server.requests.filter((m) => m === "tasks/result").length).toBeGreaterThanOrEqual(2);
      expect(asked()).toHaveLength(1);
      expect(server.answers).toEqual([]);

      const fresh = h.reopen();
      clock += 10_000;
      await fresh.alarm();
      expect(fresh.session().status).toBe("waiting_input");
      expect(fresh.session().pendingInputs.map((p) => p.requestId)).toEqual([pending!.requestId]);
      await expect(
        fresh.answerInput(pending!.requestId, { action: "accept", content: { approve: "yes" } }),
      ).rejects.toMatchObject({ code: "bad_request" });
      await fresh.answerInput(pending!.requestId, { action: "accept", content: { approve: true, note: "go" } });
      await expect(fresh.answerInput(pending!.requestId, { action: "decline" })).rejects.toMatchObject({
        code: "conflict",
      });
      for (let i = 0; fresh.summary?.openTurn; i++) {
        if (i > 20) throw new Error("the turn did not close");
        clock += 10_000;
        await fresh.alarm();
      }
      expect(server.answers).toEqual([{ taskId: "task-1", action: "accept", content: { approve: true, note: "go" } }]);
      expect(responses(h.events())).toEqual([
        expect.objectContaining({
          name: "jobs__approve",
          status: "ok",
          response: 'accept: {"approve":true,"note":"go"}',
        }),
      ]);
      expect(server.calls).toEqual([{ tool: "approve", key: expect.any(String), task: true }]);
      expect(asked()).toHaveLength(1);
    });
  });
});
