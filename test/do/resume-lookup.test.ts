/**
 * `POST /v1/sessions/:id/runs/:runId/resume` finds its run by key in the runs projection
 * (docs/API.md#resume): any id length answers 404 or the right answer, never 500; the lookup is
 * exact (case-sensitive); an unknown run is 404 before an unreadable body is 400 (docs/API.md §7.1).
 */
import { describe, expect, it } from "vitest";
import { turnOfRun } from "../../src/features/work/cache";
import type { ModelConfig } from "../../src/model/types";
import { scriptedProvider, withSession } from "./context-harness";
import { settledTo } from "./drive";
import { api, createSession, expectError, highWaterOf } from "./helpers";

const post = (path: string, init: { json?: unknown; body?: string }) => api(path, { method: "POST", ...init });

async function waitingAtBudget() {
  const s = await createSession({ maxModelCallsPerTurn: 2 });
  expect((await post(`/v1/sessions/${s.id}/messages`, { json: { text: "remember the milk" } })).status).toBe(202);
  const session = await settledTo(s.id, (x) => x.status === "waiting");
  return { id: s.id, runId: session.wait.runId as string, waitId: session.wait.waitId as string };
}

describe("resume looks its run up by key", () => {
  it("run ids of 39, 64 and 100 characters are 404 (not 500), and more than 100 too; nothing is appended", async () => {
    const { id, waitId } = await waitingAtBudget();
    const hw = await highWaterOf(id);
    for (const n of [39, 40, 64, 100, 101, 300]) {
      const runId = "a".repeat(n);
      expectError(await post(`/v1/sessions/${id}/runs/${runId}/resume`, { json: { waitId } }), 404, "not_found");
    }
    expect(await highWaterOf(id)).toBe(hw);
  });

  it("the lookup is exact: the run id in other case is an unknown run; the real one resumes", async () => {
    const { id, runId, waitId } = await waitingAtBudget();
    expect(runId).toMatch(/[a-f]/);
    const hw = await highWaterOf(id);
    const upper = runId.toUpperCase();
    expectError(await post(`/v1/sessions/${id}/runs/${upper}/resume`, { json: { waitId } }), 404, "not_found");
    expect(await highWaterOf(id)).toBe(hw);
    const ok = await post(`/v1/sessions/${id}/runs/${runId}/resume`, { json: { waitId } });
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ seq: expect.any(Number) });
  });

  it("invalid JSON on an unknown run is 404; on the known run it is 400; neither appends", async () => {
    const { id, runId } = await waitingAtBudget();
    const hw = await highWaterOf(id);
    const unknown = "0b9f8e2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b";
    expectError(await post(`/v1/sessions/${id}/runs/${unknown}/resume`, { body: "{not json" }), 404, "not_found");
    expectError(await post(`/v1/sessions/${id}/runs/${runId}/resume`, { body: "{not json" }), 400, "bad_request");
    expect(await highWaterOf(id)).toBe(hw);
  });

  it("a run that took the turn over (stateDelta.runStarted) names that turn too, exactly", async () => {
    const model: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 32_000, maxOutputTokens: 4_000 };
    const provider = scriptedProvider({ next: () => ({ kind: "answer", text: "ok" }) });
    await withSession({ provider, model }, async (h) => {
      const sent = await h.runtime.postMessage({ text: "hi", source: "http" });
      const turn = h.runtime.summary!.openTurn!;
      const takeover = `${crypto.randomUUID()}-takeover-after-a-restart`;
      h.runtime.commit([
        {
          author: "runtime",
          modelVisibility: "hidden",
          turnId: turn.turnId,
          runId: takeover,
          actions: { stateDelta: { runStarted: { runId: takeover, cause: "recovery" } } },
        },
      ]);
      const sql = h.state.storage.sql;
      expect(turnOfRun(sql, turn.runId)).toBe(sent.turnId);
      expect(turnOfRun(sql, takeover)).toBe(sent.turnId);
      expect(turnOfRun(sql, takeover.toUpperCase())).toBeUndefined();
      expect(turnOfRun(sql, `${takeover}x`)).toBeUndefined();
    });
  });
});
