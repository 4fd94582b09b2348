/**
 * `A2A_AGENTS` (docs/API.md#a2a-agents): every kind of bad value is refused naming the entry and
 * the field, never echoing a value; and what a push notification's body says.
 */
import { StreamResponse, Task, TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { a2aHosts, parseA2aAgents } from "../../../src/features/a2a-client/config";
import { noticeOf } from "../../../src/features/a2a-client/task-status";

const SECRETISH = "sk-live-DO-NOT-ECHO-123456";

describe("A2A_AGENTS", () => {
  it("unset or empty is no agents; a good entry defaults to effect write", () => {
    expect(parseA2aAgents(undefined)).toEqual({ ok: true, agents: [] });
    expect(parseA2aAgents(" ")).toEqual({ ok: true, agents: [] });
    expect(
      parseA2aAgents(
        JSON.stringify([
          {
            name: "helper",
            url: "https://agent.example/.well-known/agent-card.json",
            headers: { authorization: "Bearer {{secret:HELPER_TOKEN}}" },
          },
          { name: "ops_2", url: "http://127.0.0.1:9/card", effect: "idempotent" },
        ]),
      ),
    ).toEqual({
      ok: true,
      agents: [
        {
          name: "helper",
          url: "https://agent.example/.well-known/agent-card.json",
          headers: { authorization: "Bearer {{secret:HELPER_TOKEN}}" },
          effect: "write",
        },
        { name: "ops_2", url: "http://127.0.0.1:9/card", headers: {}, effect: "idempotent" },
      ],
    });
  });

  it.each([
    ["not JSON", `[{"name": "${SECRETISH}"`, "A2A_AGENTS is not valid JSON"],
    ["not an array", JSON.stringify({ name: "x" }), "A2A_AGENTS must be a JSON array of agents"],
    [
      "a bad name",
      JSON.stringify([{ name: SECRETISH, url: "https://a.example/c" }]),
      "A2A_AGENTS[0].name: must match [a-z0-9_]{1,20}",
    ],
    [
      "a bad url",
      JSON.stringify([{ name: "a", url: `ftp://${SECRETISH}/c` }]),
      "A2A_AGENTS[0].url: must be the absolute http or https URL of the agent card",
    ],
    [
      "credentials in the url",
      JSON.stringify([{ name: "a", url: `https://user:${SECRETISH}@a.example/c` }]),
      "A2A_AGENTS[0].url: must not hold credentials (send them in headers, as {{secret:NAME}})",
    ],
    [
      "an unknown field",
      JSON.stringify([{ name: "a", url: "https://a.example/c", token: SECRETISH }]),
      'A2A_AGENTS[0]: "token" is not a field of an agent (name, url, headers, effect)',
    ],
    [
      "a bad effect",
      JSON.stringify([{ name: "a", url: "https://a.example/c", effect: "read" }]),
      'A2A_AGENTS[0].effect: must be "write" or "idempotent"',
    ],
    [
      "a header with a newline",
      JSON.stringify([{ name: "a", url: "https://a.example/c", headers: { x: `a\n${SECRETISH}` } }]),
      "A2A_AGENTS[0].headers (header 1): its value cannot contain CR, LF or NUL",
    ],
    [
      "a bad secret reference",
      JSON.stringify([{ name: "a", url: "https://a.example/c", headers: { x: "{{secret:1BAD}}" } }]),
      "A2A_AGENTS[0].headers (header 1): {{secret:…}} must name a var ([A-Za-z_][A-Za-z0-9_]*)",
    ],
    [
      "two agents with one name",
      JSON.stringify([
        { name: "a", url: "https://a.example/c" },
        { name: "a", url: "https://b.example/c" },
      ]),
      "A2A_AGENTS[1].name: another agent has this name",
    ],
  ])("%s is refused, naming where, never the value", (_what, raw, message) => {
    const r = parseA2aAgents(raw);
    expect(r).toEqual({ ok: false, message });
    expect(JSON.stringify(r)).not.toContain(SECRETISH);
  });

  it("a configured agent's host is denied to http_fetch", () => {
    expect(a2aHosts({ A2A_AGENTS: JSON.stringify([{ name: "a", url: "https://agent.example:8443/card" }]) })).toEqual([
      "agent.example:8443",
    ]);
    expect(a2aHosts({ A2A_AGENTS: "not json" })).toEqual([]);
  });
});

describe("a push notification's body", () => {
  const task = (state: TaskState) =>
    Task.fromJSON({
      id: "T1",
      contextId: "C1",
      status: { state: state === TaskState.TASK_STATE_COMPLETED ? "TASK_STATE_COMPLETED" : "TASK_STATE_WORKING" },
      artifacts: [{ artifactId: "a", parts: [{ text: "the answer" }] }],
    });

  it("a v1.0 StreamResponse with the task says its state and answer", () => {
    const body = StreamResponse.toJSON({ payload: { $case: "task", value: task(TaskState.TASK_STATE_COMPLETED) } });
    expect(noticeOf(body)).toEqual({
      taskId: "T1",
      status: { taskId: "T1", state: "completed", response: { taskId: "T1", contextId: "C1", text: "the answer" } },
    });
  });

  it("a status update names its task; its completion is read from the task itself", () => {
    const body = {
      statusUpdate: { taskId: "T1", contextId: "C1", status: { state: "TASK_STATE_COMPLETED" } },
    };
    expect(noticeOf(body)).toEqual({ taskId: "T1", status: null });
    const failed = { statusUpdate: { taskId: "T1", contextId: "C1", status: { state: "TASK_STATE_FAILED" } } };
    expect(noticeOf(failed)).toMatchObject({ taskId: "T1", status: { state: "failed" } });
  });

  it("anything else names no task", () => {
    expect(noticeOf(null)).toEqual({ taskId: null, status: null });
    expect(noticeOf("x")).toEqual({ taskId: null, status: null });
    expect(noticeOf({ hello: 1 })).toEqual({ taskId: null, status: null });
  });
});
