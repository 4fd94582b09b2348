/**
 * The pure parts of the A2A server (docs/API.md#a2a-server): the JSON-RPC envelope check, task
 * ids, what a stream sends for a view of the log, message text and its limits, the push outbox's
 * states and backoff, and the agent card as the SDK reads it.
 */
import { AgentCard, Role, TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { agentCard } from "../../../src/features/a2a-server/card";
import { textOf } from "../../../src/features/a2a-server/handler";
import { backoffMs, notificationOf, pushAllowed } from "../../../src/features/a2a-server/push-deliver";
import { reportedState } from "../../../src/features/a2a-server/push-store";
import { checkEnvelope } from "../../../src/features/a2a-server/routes";
import { sseResponse } from "../../../src/features/a2a-server/sse";
import { parseTaskId, taskIdOf, taskOf, updatesOf } from "../../../src/features/a2a-server/task";
import type { TurnView } from "../../../src/features/a2a-server/turn-read";
import type { Event } from "../../../src/log";

const SID = "a".repeat(64);
const ref = { sessionId: SID, seq: 3, turnId: "t-1" };

function view(over: Partial<TurnView> = {}): TurnView {
  return {
    turnId: "t-1",
    seq: 3,
    createdAt: "2026-12-02T00:00:00.000Z",
    updatedAt: "2026-12-02T00:00:01.000Z",
    state: "working",
    asked: null,
    error: null,
    answer: null,
    messages: [],
    head: 5,
    more: false,
    ...over,
  };
}

describe("the JSON-RPC envelope", () => {
  it.each([
    ["{oops", -32700],
    ["[]", -32600],
    ['"text"', -32600],
    ['{"id":1,"method":"GetTask","params":{}}', -32600],
    ['{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{}}', -32600],
    ['{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}', -32601],
    ['{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[1]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"GetTask"}', -32602],
  ])("%s is refused with %i", (text, code) => {
    const r = checkEnvelope(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect((r.error as { error: { code: number } }).error.code).toBe(code);
  });

  it("passes a well-formed request on", () => {
    const r = checkEnvelope('{"jsonrpc":"2.0","id":"x","method":"SendMessage","params":{}}');
    expect(r).toEqual({ ok: true, value: { jsonrpc: "2.0", id: "x", method: "SendMessage", params: {} } });
  });
});

describe("task ids", () => {
  it("round-trip and refuse anything this server did not mint", () => {
    expect(parseTaskId(taskIdOf(ref))).toEqual(ref);
    for (const bad of ["", "x", `${SID}.0.t`, `${SID.slice(1)}.1.t`, `${SID}.1.t/../x`, 7])
      expect(parseTaskId(bad)).toBeNull();
  });
});

describe("a task and its updates from the log", () => {
  const user = { seq: 3, role: "user" as const, text: "hi", at: "a", messageId: "m-1" };
  const agent = { seq: 5, role: "agent" as const, text: "hello", at: "b", messageId: null };

  it("keeps the sender's messageId, names the rest by seq, and carries the answer as an artifact", () => {
    const t = taskOf(ref, view({ state: "completed", messages: [user, agent], answer: { seq: 5, text: "hello" } }));
    expect(t.history.map((m) => [m.messageId, m.role])).toEqual([
      ["m-1", Role.ROLE_USER],
      [`${SID}.5`, Role.ROLE_AGENT],
    ]);
    expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(t.artifacts[0]!.parts[0]!.content).toEqual({ $case: "text", value: "hello" });
    expect(taskOf(ref, view({ messages: [user, agent] }), 1).history.length).toBe(1);
    expect(taskOf(ref, view({ messages: [user, agent] }), 0).history.length).toBe(0);
  });

  it("sends each new agent message, then a status only when the state changed", () => {
    const same = updatesOf(ref, view({ messages: [agent] }), "working");
    expect(same.map((u) => u.payload?.$case)).toEqual(["statusUpdate"]);
    const done = updatesOf(ref, view({ state: "completed", answer: { seq: 5, text: "x" } }), "working");
    expect(done.map((u) => u.payload?.$case)).toEqual(["artifactUpdate", "statusUpdate"]);
    const asked = updatesOf(ref, view({ state: "input-required", asked: "approval r1" }), "working");
    const status = asked[0]!.payload!.value as { status: { state: TaskState; message: unknown } };
    expect(status.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(status.status.message).toBeDefined();
  });
});

describe("a message's text", () => {
  const msg = (parts: unknown[], extra = {}) =>
    ({
      messageId: "m",
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts,
      extensions: [],
      referenceTaskIds: [],
      metadata: undefined,
      ...extra,
    }) as never;
  const text = (value: string) => ({ content: { $case: "text", value } });

  it("joins text parts and refuses other parts, empty text, text over the limit and long ids", () => {
    expect(textOf(msg([text("a"), text("b")])).text).toBe("a\n\nb");
    expect(() => textOf(msg([{ content: { $case: "url", value: "https://x" } }]))).toThrow(/only text parts/);
    expect(() => textOf(msg([text("  ")]))).toThrow(/non-empty/);
    expect(() => textOf(msg([text("é".repeat(131_073))]))).toThrow(/262144/);
    expect(() => textOf(msg([text("a")], { messageId: "x".repeat(197) }))).toThrow(/messageId/);
    expect(() => textOf(msg([text("a")], { role: Role.ROLE_AGENT }))).toThrow(/ROLE_USER/);
  });
});

describe("the push outbox", () => {
  const ev = (actions: Event["actions"]) => ({ seq: 9, turnId: "t", actions }) as Event;

  it("reports a turn's close, input asked for and given, nothing else", () => {
    expect(reportedState(ev({ turnClose: { reason: "completed" } }))).toBe("completed");
    expect(reportedState(ev({ turnClose: { reason: "stopped" } }))).toBe("canceled");
    expect(reportedState(ev({ turnClose: { reason: "failed" } }))).toBe("failed");
    expect(reportedState(ev({ permissionRequest: { requestId: "r", callId: "c", tool: "x", args: {} } }))).toBe(
      "input-required",
    );
    expect(reportedState(ev({ stateDelta: { budgetWait: { waitId: "w", modelCalls: 3 } } }))).toBe("input-required");
    expect(
      reportedState(ev({ toolDispatch: { callId: "c", tool: "wait_for", effect: "idempotent", idempotencyKey: "k" } })),
    ).toBe("input-required");
    expect(reportedState(ev({ permissionDecision: { requestId: "r", decision: "approve", argsDigest: "d" } }))).toBe(
      "working",
    );
    expect(reportedState(ev({ stateDelta: { x: 1 } }))).toBeNull();
    expect(
      reportedState(ev({ toolDispatch: { callId: "c", tool: "read_file", effect: "read", idempotencyKey: "k" } })),
    ).toBeNull();
  });

  it("backs off 1 s, 2 s, 4 s … up to 5 minutes", () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(20)).toBe(300_000);
  });

  it("sends only to hosts A2A_PUSH_ALLOWED_HOSTS allows (none by default)", () => {
    expect(pushAllowed({}, new URL("https://hooks.example.com/x"))).toBe(false);
    const env = { A2A_PUSH_ALLOWED_HOSTS: "*.example.com" };
    expect(pushAllowed(env, new URL("https://hooks.example.com/x"))).toBe(true);
    expect(pushAllowed(env, new URL("https://example.org/x"))).toBe(false);
    expect(pushAllowed(env, new URL("ftp://hooks.example.com/x"))).toBe(false);
  });

  it("notifies with the task's status update as the protocol's JSON", () => {
    const body = JSON.parse(
      notificationOf({
        task_id: taskIdOf(ref),
        config_id: "default",
        seq: 9,
        state: "completed",
        at: "2026-12-02T00:00:00.000Z",
        attempts: 0,
        next_at: 0,
      }),
    );
    expect(body.statusUpdate).toMatchObject({
      taskId: taskIdOf(ref),
      contextId: SID,
      status: { state: "TASK_STATE_COMPLETED" },
    });
  });
});

describe("the agent card", () => {
  it("is read back by the SDK with its endpoint, bearer scheme and capabilities", () => {
    const json = AgentCard.toJSON(agentCard({}, "https://agent.example"));
    const card = AgentCard.fromJSON(json);
    expect(card.name).toBe("highwater");
    expect(card.supportedInterfaces[0]).toMatchObject({ url: "https://agent.example/a2a", protocolBinding: "JSONRPC" });
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.securitySchemes.bearer?.scheme?.$case).toBe("httpAuthSecurityScheme");
  });
});

describe("the SSE answer", () => {
  it("sends a keep-alive comment while the next event is pending, then the event once, and stops reading when cancelled", async () => {
    let release!: (v: IteratorResult<unknown>) => void;
    let returned = false;
    const rest: AsyncIterator<unknown> = {
      next: () => new Promise((r) => (release = r)),
      return: async () => {
        returned = true;
        return { done: true, value: undefined };
      },
    };
    const res = sseResponse({ n: 1 }, rest, 7, () => ({ code: -32603, message: "x" }), 1);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: {"n":1}\n\n');
    expect((await reader.read()).value).toBe(": keep-alive\n\n");
    release({ done: false, value: { n: 2 } });
    let next = (await reader.read()).value;
    while (next === ": keep-alive\n\n") next = (await reader.read()).value;
    expect(next).toBe('data: {"n":2}\n\n');
    await reader.cancel();
    expect(returned).toBe(true);
  });

  it("ends with an error frame when the stream fails midway", async () => {
    const rest: AsyncIterator<unknown> = { next: async () => Promise.reject(new Error("boom")) };
    const res = sseResponse({ n: 1 }, rest, 7, (err) => ({ code: -32603, message: (err as Error).message }));
    const text = await res.text();
    expect(text).toBe(
      'data: {"n":1}\n\nevent: error\ndata: {"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}\n\n',
    );
  });
});
