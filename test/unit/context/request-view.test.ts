import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RequestView, type ViewBase } from "../../../src/context/request-view";
import { canonical, type Event } from "../../../src/log";
import type { NeutralMessage, ToolSpec } from "../../../src/model/types";
import { buildModelMessages } from "../../../src/projections";
import { newLog } from "../support/fixtures";

const tools: ToolSpec[] = [
  { name: "write_file", description: "w", parameters: { type: "object" } },
  { name: "read_file", description: "r", parameters: { type: "object" } },
] as ToolSpec[];

/** docs/design.md#context: sha256 of the canonical `{ messages, tools }`, tools sorted by name, serialized whole. */
function wholeDigest(messages: NeutralMessage[], t: ToolSpec[]): string {
  const sorted = [...t].sort((a, b) => (a.name < b.name ? -1 : 1));
  return createHash("sha256")
    .update(canonical({ messages, tools: sorted }))
    .digest("hex");
}

/** A long turn with every shape the fold handles: parallel calls, held input, thinking, wire ids, offloads. */
function longTurn(): Event[] {
  const b = newLog();
  b.user("write the report");
  for (let i = 0; i < 40; i++) {
    b.hidden({ modelRequest: { throughSeq: 0, checkpointId: null, estimatedTokens: 1, requestDigest: "d" } });
    const ids = b.answer(i % 3 === 0 ? `step ${i}` : null, [
      { name: "read_file", args: { path: `f${i}` } },
      ...(i % 4 === 0 ? [{ name: "write_file", args: { path: `g${i}`, text: "é".repeat(i) } }] : []),
    ]);
    if (i % 5 === 0) b.user(`also consider ${i}`); // arrives while calls are pending: held
    for (const [k, id] of ids.entries()) {
      const offload = i % 7 === 0 && k === 0;
      b.result(
        id,
        k === 0 ? "read_file" : "write_file",
        { text: `content ${i}`.repeat(k + 1) },
        "ok",
        offload
          ? { stateDelta: { offload: { sha256: `${i}`.padStart(64, "0"), bytes: 9000, preview: "p" } } }
          : undefined,
      );
    }
  }
  b.answer("done");
  return b.events;
}

function contextEvents(events: Event[]): Event[] {
  return events.filter((e) => e.modelVisibility === "visible" || e.actions?.modelRequest !== undefined);
}

const bases: Record<string, ViewBase> = {
  plain: { system: "sys", checkpoint: null, placeholders: new Map() },
  "on a checkpoint with placeholders": {
    system: "sys",
    checkpoint: { id: "cp1", throughSeq: 0, summary: "so far" },
    placeholders: new Map([["call3", { sha256: "a".repeat(64), bytes: 5000, preview: "pv" }]]),
  },
  "a fork's prefix": {
    system: "sys",
    checkpoint: null,
    placeholders: new Map(),
    prefix: { messages: [{ role: "user", content: "parent said" }], text: "x" },
  },
};

describe("the request view: each request extends the last one (docs/design.md#context)", () => {
  for (const [name, base] of Object.entries(bases)) {
    it(`kept and extended one event at a time, it equals a view rebuilt from scratch at every step (${name})`, () => {
      const events = contextEvents(longTurn());
      const kept = new RequestView(base, "k");
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        kept.extend([e], e.seq);
        const incremental = kept.request(tools);
        const rebuilt = new RequestView(base, "k");
        rebuilt.extend(events.slice(0, i + 1), e.seq);
        const fresh = rebuilt.request(tools);
        // And both equal the messages built the old way and the digest of their whole bytes.
        const reference = buildModelMessages({
          system: base.system,
          summary: base.checkpoint?.summary ?? null,
          events: events.slice(0, i + 1),
          placeholders: base.placeholders,
        });
        const expected = base.prefix ? [reference[0]!, ...base.prefix.messages, ...reference.slice(1)] : reference;
        expect(canonical(incremental.messages)).toBe(canonical(expected));
        expect(canonical(fresh.messages)).toBe(canonical(expected));
        expect(incremental.requestDigest).toBe(wholeDigest(expected, tools));
        expect(fresh.requestDigest).toBe(incremental.requestDigest);
        expect(incremental.messagesChars).toBe(JSON.stringify(expected).length);
      }
    });
  }

  it("a message handed out is not changed by the events folded after it", () => {
    const events = contextEvents(longTurn());
    const view = new RequestView(bases.plain!, "k");
    const mid = events.findIndex((e) => e.content?.type === "functionCall");
    view.extend(events.slice(0, mid + 1), events[mid]!.seq);
    const first = view.request(tools);
    const before = canonical(first.messages);
    view.extend(events.slice(mid + 1), events.at(-1)!.seq);
    view.request(tools);
    expect(canonical(first.messages)).toBe(before);
  });
});
