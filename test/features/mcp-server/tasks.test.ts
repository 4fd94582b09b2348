import { describe, expect, it } from "vitest";
import type { TaskState } from "../../../src/features/mcp-server/task-state";
import { declaresTasks, detailedTask, parseTaskId, taskIdOf } from "../../../src/features/mcp-server/tasks";

const ref = { sessionId: "a".repeat(64), seq: 7, turnId: "3f2c7a4e-1111-4222-8333-944455556666" };
const at = { turnId: ref.turnId, createdAt: "2026-12-02T00:00:00.000Z", lastUpdatedAt: "2026-12-02T00:00:01.000Z" };

describe("MCP tasks as turns (docs/API.md#a-session-as-an-mcp-server)", () => {
  it("a task id names the session, the message's seq and the turn, and parses back; anything else is not one", () => {
    expect(parseTaskId(taskIdOf(ref))).toEqual(ref);
    for (const bad of [
      "nope",
      42,
      null,
      `${"a".repeat(63)}.7.t`,
      `${"a".repeat(64)}.0.t`,
      `${"a".repeat(64)}.07.t`,
      `${"a".repeat(64)}.7.`,
      `${"a".repeat(64)}.7.a b`,
      `${"A".repeat(64)}.7.t`,
    ])
      expect(parseTaskId(bad), String(bad)).toBeNull();
  });

  it("each state maps to the extension's DetailedTask", () => {
    const t = (s: TaskState) => detailedTask(ref, s) as Record<string, unknown>;
    expect(t({ ...at, state: "working" })).toMatchObject({ taskId: taskIdOf(ref), status: "working", ttlMs: null });
    expect(t({ ...at, state: "completed", answer: "done" })).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "done" }], isError: false },
    });
    expect(t({ ...at, state: "cancelled" })).toMatchObject({ status: "cancelled" });
    expect(t({ ...at, state: "failed", code: "model_failed", message: "x" })).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "model_failed: x" },
    });
    const asked = t({
      ...at,
      state: "input_required",
      asked: [
        { kind: "approval", requestId: "apr_1", tool: "write_file", args: { b: 1, a: 2 }, argsDigest: "d" },
        { kind: "wait", waitId: "wait:c1", runId: "r1", waitKind: "wait_for", reason: "the deploy" },
      ],
    });
    expect(asked.status).toBe("input_required");
    const requests = asked.inputRequests as Record<string, { method: string; params: { message: string } }>;
    expect(Object.keys(requests)).toEqual(["approval:apr_1", "wait:wait:c1"]);
    expect(requests["approval:apr_1"]!.method).toBe("elicitation/create");
    // Arguments are named canonically, so a read after a restart gives the same bytes.
    expect(requests["approval:apr_1"]!.params.message).toContain('{"a":2,"b":1}');
    expect(requests["wait:wait:c1"]!.params.message).toContain("the deploy");
  });

  it("only a request that names the extension in its client capabilities declares it", () => {
    const caps = (extensions: unknown) => ({ "io.modelcontextprotocol/clientCapabilities": { extensions } });
    expect(declaresTasks(caps({ "io.modelcontextprotocol/tasks": {} }))).toBe(true);
    expect(declaresTasks(caps({}))).toBe(false);
    expect(declaresTasks(caps(undefined))).toBe(false);
    expect(declaresTasks(undefined)).toBe(false);
  });
});
