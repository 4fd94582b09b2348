/**
 * A server's question during a call is a durable question (docs/API.md#questions-from-mcp-servers):
 * the session waits in `waiting_input`, the answer is checked and recorded, and reaches the server
 * (2026-07-28: by the call made again with it; 2025-11-25: over the open stream).
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import type { ModelConfig } from "../../../src/model/types";
import type { SessionRuntime } from "../../../src/runtime";
import { McpHub, parseMcpServers } from "../../../src/tools/mcp";
import { type Step, scriptedProvider, withSession } from "../../do/context-harness";
import { mcp1Elicit } from "../../fakes/mcp1-elicit";
import { CONFIRM_FORM, mcp2Server } from "../../fakes/mcp2-server";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };

function hubOver(route: typeof fetch) {
  const cfg = parseMcpServers(JSON.stringify([{ name: "ops", url: "http://ops.mcp.test/mcp", timeoutMs: 20_000 }]));
  if (!cfg.ok) throw new Error(cfg.message);
  return () => new McpHub(cfg.servers, { fetch: route, secret: () => undefined, now: () => 0 });
}

const script = (steps: Step[]) => scriptedProvider({ next: (_r, n) => steps[n] ?? { kind: "answer", text: "done" } });

async function until(runtime: SessionRuntime, ok: () => boolean) {
  for (let i = 0; !ok(); i++) {
    if (i > 50) throw new Error("never reached");
    await runtime.alarm();
  }
}

const asked = (events: Event[]) =>
  events.flatMap((e) =>
    e.actions?.stateDelta?.inputRequested ? [e.actions.stateDelta.inputRequested as Record<string, unknown>] : [],
  );

describe("questions from a 2026-07-28 server", () => {
  it("wait in waiting_input; the answer is recorded and goes back by the call made again", async () => {
    const server = mcp2Server();
    const provider = script([
      { kind: "call", name: "ops__confirm", args: { what: "deploy" } },
      { kind: "answer", text: "ok" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch) }, async (h) => {
      await h.runtime.postMessage({ text: "deploy", source: "http" });
      await until(h.runtime, () => h.runtime.session().status === "waiting_input");
      const session = h.runtime.session();
      expect(session.pendingInputs).toEqual([
        {
          requestId: expect.stringMatching(/^inp_[0-9a-f]{24}$/),
          callId: expect.any(String),
          server: "ops",
          message: "Approve deploy?",
          schema: CONFIRM_FORM,
        },
      ]);
      const [q] = asked(h.events());
      expect(q).toMatchObject({ key: "approval", requestState: "state-for-deploy" });
      const requestId = session.pendingInputs[0]!.requestId;
      // No alarm runs the loop while it waits: the turn is parked.
      await h.runtime.alarm();
      expect(server.calls).toHaveLength(1);

      const before = h.events().length;
      await expect(
        h.runtime.answerInput(requestId, { action: "accept", content: { approve: "yes" } }),
      ).rejects.toMatchObject({
        code: "bad_request",
      });
      await expect(
        h.runtime.answerInput(requestId, { action: "accept", content: { other: 1, approve: true } }),
      ).rejects.toMatchObject({
        code: "bad_request",
      });
      await expect(h.runtime.answerInput("inp_000000000000000000000000", { action: "cancel" })).rejects.toMatchObject({
        code: "not_found",
      });
      expect(h.events()).toHaveLength(before);

      await h.runtime.answerInput(requestId, { action: "accept", content: { approve: true, note: "go" } });
      await expect(h.runtime.answerInput(requestId, { action: "decline" })).rejects.toMatchObject({ code: "conflict" });
      await until(h.runtime, () => !h.runtime.summary?.openTurn);
      const events = h.events();
      const answered = events.find((e) => e.actions?.stateDelta?.inputAnswered)!;
      expect(answered.author).toBe("user");
      expect(answered.actions!.stateDelta!.inputAnswered).toEqual({
        requestId,
        callId: session.pendingInputs[0]!.callId,
        action: "accept",
        content: { approve: true, note: "go" },
      });
      const key = events.find((e) => e.actions?.toolDispatch)!.actions!.toolDispatch!.idempotencyKey;
      expect(server.calls).toEqual([
        { tool: "confirm", key, era: "modern", args: { what: "deploy" } },
        {
          tool: "confirm",
          key,
          era: "modern",
          args: { what: "deploy" },
          answers: { approval: { action: "accept", content: { approve: true, note: "go" } } },
        },
      ]);
      const response = events.find((e) => e.content?.type === "functionResponse")!.content;
      expect(response).toMatchObject({ status: "ok", response: 'accept: {"approve":true,"note":"go"}' });
      expect(h.runtime.session().pendingInputs).toEqual([]);
    });
  });

  it("survive a restart: a fresh runtime over the same storage sends the answer", async () => {
    const server = mcp2Server();
    const provider = script([
      { kind: "call", name: "ops__confirm", args: { what: "x" } },
      { kind: "answer", text: "ok" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch) }, async (h) => {
      await h.runtime.postMessage({ text: "go", source: "http" });
      await until(h.runtime, () => h.runtime.session().status === "waiting_input");
      const requestId = h.runtime.session().pendingInputs[0]!.requestId;
      const again = h.reopen();
      expect(again.session().status).toBe("waiting_input");
      await again.answerInput(requestId, { action: "decline" });
      await until(again, () => !again.summary?.openTurn);
      expect(server.calls.at(-1)!.answers).toEqual({ approval: { action: "decline" } });
      expect(h.events().find((e) => e.content?.type === "functionResponse")!.content).toMatchObject({
        status: "ok",
        response: "decline: null",
      });
    });
  });

  it("a stop while waiting ends the wait; the question is closed", async () => {
    const server = mcp2Server();
    const provider = script([{ kind: "call", name: "ops__confirm", args: { what: "x" } }]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch) }, async (h) => {
      await h.runtime.postMessage({ text: "go", source: "http" });
      await until(h.runtime, () => h.runtime.session().status === "waiting_input");
      const requestId = h.runtime.session().pendingInputs[0]!.requestId;
      h.runtime.stop();
      expect(h.runtime.session()).toMatchObject({ status: "idle", pendingInputs: [] });
      await expect(h.runtime.answerInput(requestId, { action: "cancel" })).rejects.toMatchObject({ code: "conflict" });
      expect(server.calls).toHaveLength(1);
    });
  });
});

describe("questions from a 2025-11-25 server", () => {
  it("are asked over the open stream; the answer reaches the server while the call runs", async () => {
    const server = mcp1Elicit();
    const provider = script([
      { kind: "call", name: "ops__confirm", args: { what: "legacy" } },
      { kind: "answer", text: "ok" },
    ]);
    await withSession({ provider, model: MODEL, mcp: hubOver(server.fetch) }, async (h) => {
      await h.runtime.postMessage({ text: "go", source: "http" });
      const slice = (async () => {
        for (let i = 0; h.runtime.summary?.openTurn && i < 50; i++) await h.runtime.alarm();
      })();
      for (let i = 0; (h.runtime.session().pendingInputs.length ?? 0) === 0; i++) {
        if (i > 500) throw new Error("no question");
        await new Promise((r) => setTimeout(r, 10));
      }
      const [pending] = h.runtime.session().pendingInputs;
      expect(pending).toMatchObject({ server: "ops", message: "Approve legacy?", stream: true, schema: CONFIRM_FORM });
      expect(h.runtime.session().status).toBe("waiting_input");
      await h.runtime.answerInput(pending!.requestId, { action: "accept", content: { approve: false } });
      await slice;
      expect(server.calls).toEqual([
        expect.objectContaining({ tool: "confirm", answer: { action: "accept", content: { approve: false } } }),
      ]);
      expect(server.requests).toContain("initialize");
      expect(h.events().find((e) => e.content?.type === "functionResponse")!.content).toMatchObject({
        status: "ok",
        response: 'accept: {"approve":false}',
      });
    });
  });
});
