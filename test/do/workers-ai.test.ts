/**
 * The Workers AI adapter inside workerd: the shared fake-binding suite, and a whole turn with a
 * tool call through the real runtime on a real session object's SQLite (docs/API.md §1, §3, §7.6).
 */
import { describe, expect, it } from "vitest";
import { createWorkersAiProvider, type ModelConfig } from "../../src/model";
import { fakeAiBinding } from "../fakes/workers-ai-binding";
import { defineWorkersAiSuite } from "../fakes/workers-ai-suite";
import { withSession } from "./context-harness";

defineWorkersAiSuite("workerd");

const MODEL: ModelConfig = {
  provider: "workers-ai",
  name: "@cf/test/model",
  contextWindow: 32_000,
  maxOutputTokens: 1000,
};

describe("a turn on Workers AI (workerd)", () => {
  it("a streamed tool call is dispatched and answered, and the answer after it closes the turn", async () => {
    const ai = fakeAiBinding([
      { kind: "tool", id: "call_wai_7", name: "list_files", argPieces: ["{", "}"] },
      { kind: "text", pieces: ["The workspace ", "is empty."] },
    ]);
    const provider = createWorkersAiProvider(ai);
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("What files are there?");
      const events = h.events();
      const call = events.find((e) => e.content?.type === "functionCall")?.content as
        | { callId: string; name: string; providerCallId?: string }
        | undefined;
      expect(call?.name).toBe("list_files");
      expect(call?.providerCallId).toMatch(/^call_wai_7/);
      const response = events.find((e) => e.content?.type === "functionResponse")?.content as
        | { callId: string; status: string }
        | undefined;
      expect(response).toMatchObject({ callId: call?.callId, status: "ok" });
      const texts = events.filter((e) => e.author === "model" && e.content?.type === "text");
      expect(texts.at(-1)?.content).toMatchObject({ text: "The workspace is empty." });
      expect(events.filter((e) => e.actions?.tokenUsage)).toHaveLength(2);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
      // The second run carried the result under the binding's own id.
      expect(ai.calls).toHaveLength(2);
      const second = JSON.stringify(ai.calls[1]!.inputs.messages);
      expect(second).toContain('"call_wai_7"');
      expect(second).not.toContain("cf-wai-tool-call");
    });
  });

  it("a cut stream is a failed attempt and the retry's answer completes the turn", async () => {
    const ai = fakeAiBinding([
      { kind: "text", pieces: ["half an ans"], done: false },
      { kind: "text", pieces: ["A whole answer."] },
    ]);
    await withSession({ provider: createWorkersAiProvider(ai), model: MODEL }, async (h) => {
      await h.runTurn("hello");
      const events = h.events();
      const attempts = events.flatMap((e) => {
        const m = e.actions?.stateDelta?.modelAttempt as { code: string } | undefined;
        return m ? [m.code] : [];
      });
      expect(attempts).toEqual(["stream_cut"]);
      const texts = events.filter((e) => e.author === "model" && e.content?.type === "text");
      expect(texts.map((e) => (e.content as { text: string }).text)).toEqual(["A whole answer."]);
      expect(events.at(-1)?.actions?.turnClose?.reason).toBe("completed");
    });
  });
});
