/**
 * What a step costs in rows written (docs/design.md#3-storage), counted the way Durable Object
 * SQLite bills them: `rowsWritten` of every statement, each index entry an INSERT adds included.
 * A model step (a request, an answer with one call, its dispatch and result) writes at most 8
 * rows; a durable tool step (one call of an answer with many, its dispatch and result) at most 5.
 * Per step = (rows of a turn of n steps − rows of a turn of none) / n, so a turn's own rows (the
 * message, its run, the close) cancel.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifySuffix } from "../../src/log";
import type { ModelConfig, ModelPart, ModelProvider } from "../../src/model/types";
import { applyMigrations, type SqlLike } from "../../src/storage";
import { runtimeOn } from "./runtime-on";

const MODEL: ModelConfig = { provider: "openai", name: "steps", contextWindow: 128_000, maxOutputTokens: 8_192 };

/** `toolAnswers` answers of `callsPerAnswer` no-op calls (list_files of an empty workspace), then text. */
function toolModel(toolAnswers: number, callsPerAnswer: number): ModelProvider {
  let left = toolAnswers;
  let n = 0;
  return {
    name: "openai",
    async *stream(): AsyncIterable<ModelPart> {
      if (left-- > 0) {
        for (let i = 0; i < callsPerAnswer; i++)
          yield { type: "tool-call", callId: `call-${n++}`, name: "list_files", args: {} };
        yield { type: "usage", inputTokens: 1000, outputTokens: 10 };
        yield { type: "finish", reason: "tool-calls" };
        return;
      }
      yield { type: "text-delta", text: "Done." };
      yield { type: "usage", inputTokens: 1000, outputTokens: 2 };
      yield { type: "finish", reason: "stop" };
    },
  };
}

/** Rows written by one whole turn (message to close) on a fresh session, and the turn's events. */
function turnRows(toolAnswers: number, callsPerAnswer: number) {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`step-rows-${crypto.randomUUID()}`));
  return runInDurableObject(stub, async (_o, state) => {
    const raw = state.storage.sql;
    const tx = <T>(f: () => T): T => state.storage.transactionSync(f);
    tx(() => applyMigrations(raw));
    const cursors: { rowsWritten: number; rowsRead: number }[] = [];
    let counting = false;
    const sql = {
      exec(query: string, ...bindings: unknown[]) {
        const cursor = (raw.exec as (q: string, ...b: unknown[]) => { rowsWritten: number; rowsRead: number })(
          query,
          ...bindings,
        );
        if (counting) cursors.push(cursor);
        return cursor;
      },
    } as unknown as SqlLike;
    const provider = toolModel(toolAnswers, callsPerAnswer);
    const { runtime, store } = runtimeOn(sql, tx, state.id.toString(), { providerFor: () => provider });
    runtime.create({ id: state.id.toString(), parentId: null, options: {}, model: MODEL });
    counting = true;
    await runtime.postMessage({ text: "go", source: "http" });
    for (let i = 0; runtime.summary?.openTurn; i++) {
      if (i > 20) throw new Error("the turn did not close");
      await runtime.alarm();
    }
    counting = false;
    return {
      rows: cursors.reduce((n, c) => n + c.rowsWritten, 0),
      read: cursors.reduce((n, c) => n + c.rowsRead, 0),
      events: store.head().highWater,
      problems: verifySuffix(store, 1),
    };
  });
}

describe("rows written per step (docs/design.md#3-storage)", () => {
  it("a model step writes at most 8 rows; a durable tool step at most 5", async () => {
    const none = await turnRows(0, 1);
    const model = await turnRows(20, 1);
    const tools = await turnRows(1, 50);
    // The turns ran: a request and an answer per model step, a dispatch and a result per call.
    expect(model.events - none.events).toBe(20 * 4);
    expect(tools.events - none.events).toBe(1 + 50 * 3);
    expect([none.problems, model.problems, tools.problems]).toEqual([[], [], []]);
    const perModelStep = (model.rows - none.rows) / 20;
    const perToolStep = (tools.rows - none.rows) / 50;
    expect(
      { perModelStep: perModelStep <= 8, perToolStep: perToolStep <= 5 },
      JSON.stringify({ perModelStep, perToolStep }),
    ).toEqual({
      perModelStep: true,
      perToolStep: true,
    });
  });

  // A durable step reads what its tool reads (list_files: one row), what its three INSERTs touch
  // (one row each) and its share of the next request's read of the model view (its three events
  // and their view rows: about 5). It never reads back the events this object just appended for
  // the loop (the turn suffix keeps them), and a session bound to no channel reads no channel row:
  // 13.6 rows a step did both.
  it("a durable tool step reads at most 10 rows", async () => {
    const none = await turnRows(0, 1);
    const tools = await turnRows(1, 50);
    const perToolStep = (tools.read - none.read) / 50;
    expect(perToolStep <= 10, JSON.stringify({ perToolStep })).toBe(true);
  });
});
