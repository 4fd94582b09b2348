/**
 * MCP tasks (docs/API.md#mcp-tasks) as pure rules: which tools are called task-augmented, the task
 * a call answered with, and each task status as the remote-call core reads it.
 */
import { describe, expect, it } from "vitest";
import { remoteAnswer } from "../../../../src/runtime/remote-drafts";
import { parseMcpServers } from "../../../../src/tools/mcp/config";
import { mapCallResult } from "../../../../src/tools/mcp/mapping";
import {
  createdTaskOf,
  MCP_TASK_TIMEOUT_MS,
  remoteStatusOf,
  serverRunsToolTasks,
  taskOf,
  taskSupportOf,
} from "../../../../src/tools/mcp/tasks";

describe("which calls are task-augmented", () => {
  it("only a server whose tasks capability covers tools/call", () => {
    expect(serverRunsToolTasks({ tasks: { requests: { tools: { call: {} } } } })).toBe(true);
    expect(serverRunsToolTasks({ tasks: { list: {}, cancel: {} } })).toBe(false);
    expect(serverRunsToolTasks({ tools: {} })).toBe(false);
    expect(serverRunsToolTasks(undefined)).toBe(false);
  });

  it("never on 2026-07-28, where tasks are an extension the SDK does not implement", () => {
    const capabilities = { tasks: { requests: { tools: { call: {} } } } };
    expect(serverRunsToolTasks(capabilities, "2025-11-25")).toBe(true);
    expect(serverRunsToolTasks(capabilities, "2026-07-28")).toBe(false);
  });

  it("only a tool whose execution.taskSupport is optional or required", () => {
    expect(taskSupportOf({ execution: { taskSupport: "optional" } })).toBe("optional");
    expect(taskSupportOf({ execution: { taskSupport: "required" } })).toBe("required");
    expect(taskSupportOf({ execution: { taskSupport: "forbidden" } })).toBeNull();
    expect(taskSupportOf({ execution: {} })).toBeNull();
    expect(taskSupportOf({ name: "t" })).toBeNull();
  });
});

describe("a tools/call answer", () => {
  const task = { taskId: "T1", status: "working", ttl: null, createdAt: "x", lastUpdatedAt: "x", pollInterval: 500 };

  it("with a task (CreateTaskResult) is that task", () => {
    expect(createdTaskOf({ task })).toEqual({ taskId: "T1", status: "working" });
    expect(createdTaskOf({ task: { ...task, statusMessage: "queued" } })).toMatchObject({ statusMessage: "queued" });
  });

  it("with content, or without a well-formed task, is a direct result", () => {
    expect(createdTaskOf({ content: [{ type: "text", text: "hi" }] })).toBeNull();
    expect(createdTaskOf({ content: [], task })).toBeNull();
    expect(createdTaskOf({ task: { ...task, taskId: "" } })).toBeNull();
    expect(createdTaskOf({ task: { ...task, status: "sleeping" } })).toBeNull();
    expect(createdTaskOf({ task: "T1" })).toBeNull();
    expect(createdTaskOf(null)).toBeNull();
  });
});

describe("a task's status for the remote-call core", () => {
  it.each([
    ["working", "working"],
    ["input_required", "working"],
    ["failed", "failed"],
    ["cancelled", "cancelled"],
  ] as const)("%s is %s", (status, state) => {
    expect(remoteStatusOf({ taskId: "T1", status, statusMessage: "why" })).toEqual({
      taskId: "T1",
      state,
      message: "why",
    });
  });

  it("completed answers the call as a direct tools/call result would", () => {
    const result = {
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
      structuredContent: { n: 1 },
    };
    const status = remoteStatusOf({ taskId: "T1", status: "completed" }, result);
    expect(status).toEqual({ taskId: "T1", state: "completed", response: mapCallResult(result).response });
    expect(remoteAnswer(status)).toEqual(mapCallResult(result));
  });

  it("a completed task whose result is isError answers the call with status error", () => {
    const result = { content: [{ type: "text", text: "no such file" }], isError: true };
    const status = remoteStatusOf({ taskId: "T1", status: "completed" }, result);
    expect(remoteAnswer(status)).toEqual(mapCallResult(result));
    expect(remoteAnswer(status)?.status).toBe("error");
  });

  it("failed and cancelled answer remote_failed and remote_cancelled", () => {
    expect(remoteAnswer(remoteStatusOf({ taskId: "T1", status: "failed", statusMessage: "boom" }))).toEqual({
      status: "error",
      response: { code: "remote_failed", message: "boom", taskId: "T1" },
    });
    expect(remoteAnswer(remoteStatusOf({ taskId: "T1", status: "cancelled" }))?.response).toMatchObject({
      code: "remote_cancelled",
    });
  });

  it("a tasks/get answer that is no task is refused", () => {
    expect(taskOf({ taskId: "T1" })).toBeNull();
    expect(taskOf({ taskId: "T1", status: "completed" })).toEqual({ taskId: "T1", status: "completed" });
  });
});

describe("a task's time bound", () => {
  it("is the server's timeoutMs when set, else one hour", () => {
    const servers = parseMcpServers(
      JSON.stringify([
        { name: "a", url: "https://a.example/mcp" },
        { name: "b", url: "https://b.example/mcp", timeoutMs: 5000 },
      ]),
    );
    if (!servers.ok) throw new Error(servers.message);
    expect(servers.servers.map((s) => s.taskTimeoutMs)).toEqual([MCP_TASK_TIMEOUT_MS, 5000]);
    expect(MCP_TASK_TIMEOUT_MS).toBe(3_600_000);
  });
});
