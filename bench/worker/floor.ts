/**
 * The floor of a model step (issue 26, item 3), measured on the session whose steps are timed:
 * what no runtime can skip. The step's own events, as its last step committed them (the request,
 * the answer's call, the dispatch, the result), appended as plain INSERTs with the chain SHA-256,
 * and the request it sends serialized once. The step overhead target is a ratio to this.
 */
import { canonical, chainDigest, type EventStore, GENESIS_DIGEST } from "../../src/log";
import type { SessionRuntime } from "../../src/runtime/session-runtime";
import { MODEL } from "./rows";

const STEP_KINDS = ["modelRequest", "functionCall", "toolDispatch", "functionResponse"];

const kindOf = (e: { content?: { type: string }; actions?: Record<string, unknown> }) =>
  e.actions?.modelRequest ? "modelRequest" : e.actions?.toolDispatch ? "toolDispatch" : (e.content?.type ?? "");

export function stepFloor(sql: SqlStorage, store: EventStore, runtime: SessionRuntime, k: number) {
  sql.exec(
    "CREATE TABLE IF NOT EXISTS floor_events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, digest TEXT NOT NULL)",
  );
  const head = store.head().highWater;
  const recent = store.readFrom(Math.max(1, head - 60));
  const last = recent.findLastIndex((e) => e.content?.type === "functionResponse");
  const step = recent.slice(last - 3, last + 1);
  if (last < 3 || step.map(kindOf).join() !== STEP_KINDS.join())
    throw new Error(`bench: no step to take the floor of (${step.map(kindOf).join()})`);
  const bodies = step.map(({ digest: _digest, ...event }) => canonical(event));
  const ctx = runtime.buildContext();
  const request = { model: MODEL, messages: ctx.messages, tools: ctx.tools };
  let seq = sql.exec<{ m: number }>("SELECT COALESCE(MAX(seq), 0) AS m FROM floor_events").one().m;
  let prev = GENESIS_DIGEST;
  let bytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < k; i++) {
    for (const body of bodies) {
      prev = chainDigest(prev, body);
      sql.exec("INSERT INTO floor_events (seq, body, digest) VALUES (?, ?, ?)", ++seq, body, prev);
    }
    bytes = JSON.stringify(request).length;
  }
  const inObjectMs = performance.now() - t0;
  sql.exec("DELETE FROM floor_events");
  return { inObjectMs, requestBytes: bytes, eventBytes: bodies.reduce((n, b) => n + b.length, 0) };
}
