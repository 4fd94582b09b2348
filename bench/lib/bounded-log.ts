import type { EventDraft } from "../../src/log";
import type { SqlLike } from "../../src/storage";

/**
 * A log with `results` offloaded tool results of `resultBytes` each, one model call per result,
 * as the runtime writes it: request, call, dispatch, response with `stateDelta.offload`.
 */
export function offloadedLogDrafts(results: number, resultBytes: number): EventDraft[] {
  const turnId = "t1";
  const runId = "r1";
  const drafts: EventDraft[] = [
    { author: "user", turnId, runId, modelVisibility: "visible", content: { type: "text", text: "fetch them all" } },
  ];
  for (let i = 0; i < results; i++) {
    const invocationId = `inv${i}`;
    const callId = `call${i}`;
    const body = `result ${i} `.padEnd(resultBytes, "abcdefghij");
    drafts.push(
      {
        author: "runtime",
        turnId,
        runId,
        invocationId,
        modelVisibility: "hidden",
        actions: { modelRequest: { throughSeq: 0, checkpointId: null, estimatedTokens: 1, requestDigest: "d" } },
      },
      {
        author: "model",
        turnId,
        runId,
        invocationId,
        modelVisibility: "visible",
        content: { type: "functionCall", callId, name: "http_fetch", args: { url: `https://x.test/${i}` } },
      },
      {
        author: "runtime",
        turnId,
        runId,
        invocationId,
        modelVisibility: "hidden",
        actions: { toolDispatch: { callId, tool: "http_fetch", effect: "read", idempotencyKey: callId } },
      },
      {
        author: "tool",
        turnId,
        runId,
        invocationId,
        modelVisibility: "visible",
        content: { type: "functionResponse", callId, name: "http_fetch", status: "ok", response: body },
        actions: {
          stateDelta: { offload: { sha256: `${i}`.padStart(64, "0"), bytes: body.length, preview: body.slice(0, 64) } },
        },
      },
    );
  }
  return drafts;
}

/** Wraps a SQL handle and counts the bytes of every text and blob value that comes back to JS. */
export function countingSql(sql: SqlLike): {
  sql: SqlLike;
  bytes: () => number;
  /** The most bytes one statement's result held at once. */
  maxResult: () => number;
  reset: () => void;
} {
  let bytes = 0;
  let maxResult = 0;
  const measure = (row: Record<string, unknown>) => {
    let n = 0;
    for (const v of Object.values(row)) {
      if (typeof v === "string") n += v.length;
      else if (v instanceof ArrayBuffer) n += v.byteLength;
    }
    bytes += n;
    return n;
  };
  const wrapped: SqlLike = {
    exec(query: string, ...bindings: unknown[]) {
      const cursor = sql.exec(query, ...bindings);
      // Patched on the cursor itself: its other methods must keep their native `this`.
      const toArray = cursor.toArray.bind(cursor);
      cursor.toArray = () => {
        const out = toArray();
        let n = 0;
        for (const r of out) n += measure(r as Record<string, unknown>);
        maxResult = Math.max(maxResult, n);
        return out;
      };
      return cursor;
    },
  } as SqlLike;
  return {
    sql: wrapped,
    bytes: () => bytes,
    maxResult: () => maxResult,
    reset: () => {
      bytes = 0;
      maxResult = 0;
    },
  };
}
