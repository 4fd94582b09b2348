import { describe, expect, it } from "vitest";
import { placeholderCandidates, selectWaterline, tailStarts } from "../../../src/context";
import type { Event } from "../../../src/log";
import { buildModelMessages } from "../../../src/projections";
import { rng } from "../support/context-data";
import { newLog } from "../support/fixtures";

/** Why a raw tail cannot start at `i`, or null: every property a start must have, checked against the log itself. */
function startProblem(events: Event[], i: number): string | null {
  const callsBefore = new Set<string>();
  for (const e of events.slice(0, i)) if (e.content?.type === "functionCall") callsBefore.add(e.content.callId);
  for (const e of events.slice(i))
    if (e.content?.type === "functionResponse" && callsBefore.has(e.content.callId)) return `split call at ${e.seq}`;
  const first = events[i]!;
  const prev = events[i - 1]!;
  if (first.content?.type === "functionResponse") return "starts with a response";
  if (first.author === "model" && prev.author === "model" && prev.invocationId === first.invocationId)
    return "splits a model answer";
  return null;
}

/** A random but well-formed session: answers with 0-3 calls, results in order, user input arriving mid-step. */
function randomLog(seed: number): Event[] {
  const r = rng(seed);
  const b = newLog();
  b.user("goal");
  for (let step = 0; step < 60; step++) {
    const n = Math.floor(r() * 4);
    const ids = b.answer(
      r() < 0.5 ? "thinking aloud" : null,
      Array.from({ length: n }, () => ({ name: "read_file" })),
    );
    if (n === 0 && r() < 0.5) b.user("more input");
    ids.forEach((id, k) => {
      if (k === 1 && r() < 0.3) b.user("input while calls run");
      b.result(id, "read_file", { content: "x".repeat(Math.floor(r() * 6000)) });
    });
  }
  return b.visible;
}

describe("where a raw tail may start", () => {
  it("never splits a call from its response or a model answer", () => {
    const b = newLog();
    b.user("goal"); // 0
    const [c1] = b.answer("plan", [{ name: "read_file" }]); // 1 text, 2 call
    b.result(c1!, "read_file", "a"); // 3
    const [c2, c3] = b.answer(null, [{ name: "read_file" }, { name: "list_files" }]); // 4, 5
    b.result(c2!, "read_file", "b"); // 6
    b.user("held while c3 runs"); // 7
    b.result(c3!, "list_files", "c"); // 8
    b.answer("done"); // 9
    expect(tailStarts(b.visible)).toEqual([1, 4, 9]);
  });

  it("holds for generated logs", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const events = randomLog(seed);
      const starts = tailStarts(events);
      expect(starts.length).toBeGreaterThan(10);
      expect(starts.map((i) => startProblem(events, i)).filter(Boolean)).toEqual([]);
      // A tail that starts there projects to a well-formed request: no tool message without its call.
      const tail = buildModelMessages({ system: "s", summary: "S", events: events.slice(starts[5]!) });
      const seen = new Set<string>();
      for (const m of tail) {
        if (m.role === "assistant") for (const p of m.content) if (p.type === "tool-call") seen.add(p.callId);
        if (m.role === "tool") for (const p of m.content) expect(seen.has(p.callId)).toBe(true);
      }
    }
  });
});

describe("the waterline", () => {
  const starts = [1, 3, 5, 7];
  const costs = [100, 100, 100, 100, 100, 100, 100, 100]; // tails: 1→700, 3→500, 5→300, 7→100

  it("keeps as much of the recent working set raw as the keep budget allows", () => {
    expect(selectWaterline({ costs, starts, keepTokens: 350, fitTokens: 1000 })).toEqual({ index: 5, tailTokens: 300 });
    expect(selectWaterline({ costs, starts, keepTokens: 700, fitTokens: 1000 })).toEqual({ index: 1, tailTokens: 700 });
  });

  it("keeps at least the last unit raw when it fits, even over the keep budget", () => {
    const big = [100, 100, 100, 100, 100, 100, 100, 900];
    expect(selectWaterline({ costs: big, starts, keepTokens: 350, fitTokens: 1000 })).toEqual({
      index: 7,
      tailTokens: 900,
    });
  });

  it("gives up when even the last unit does not fit, so the caller escalates", () => {
    const big = [100, 100, 100, 100, 100, 100, 100, 900];
    expect(selectWaterline({ costs: big, starts, keepTokens: 350, fitTokens: 800 })).toBeNull();
    expect(selectWaterline({ costs, starts: [], keepTokens: 350, fitTokens: 800 })).toBeNull();
  });
});

describe("older results that become placeholders at a compaction", () => {
  it("are those over 4 KiB, older than the last three results, not offloaded already", () => {
    const b = newLog();
    b.user("go");
    const big = "x".repeat(5000);
    const ids = [
      b.step("read_file", {}, big), // old, big → placeholder
      b.step("read_file", {}, "small"), // old, small → raw
      b.step("read_file", {}, big), // old, big, already offloaded at commit → not again
      b.step("read_file", {}, big), // old, big, already a placeholder of the previous checkpoint
      b.step("read_file", {}, big), // last three: raw
      b.step("read_file", {}, big),
      b.step("read_file", {}, big),
    ];
    const events = b.visible;
    const offloaded = events.find((e) => e.content?.type === "functionResponse" && e.content.callId === ids[2])!;
    offloaded.actions = { stateDelta: { offload: { sha256: "a".repeat(64), bytes: 5000, preview: "x" } } };
    const picked = placeholderCandidates(events, { minBytes: 4096, keepRecent: 3, already: new Set([ids[3]!]) });
    const pickedIds = picked.map((i) => (events[i]!.content as { callId: string }).callId);
    expect(pickedIds).toEqual([ids[0]]);
    // Forced (the working set itself does not fit): the last three too, and anything over 1 KiB.
    const forced = placeholderCandidates(events, { minBytes: 1024, keepRecent: 0, already: new Set() });
    expect(forced.map((i) => (events[i]!.content as { callId: string }).callId)).toEqual([
      ids[0],
      ids[3],
      ids[4],
      ids[5],
      ids[6],
    ]);
  });
});
