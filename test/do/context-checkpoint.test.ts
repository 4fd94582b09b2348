import { describe, expect, it } from "vitest";
import {
  checkpointDraft,
  computeThreshold,
  loadLatestCheckpoint,
  parseCheckpointPayload,
  validateSummary,
  writeCheckpointRow,
} from "../../src/context";
import type { Event } from "../../src/log";
import type { ModelConfig } from "../../src/model/types";
import { type Harness, looksLikeCompaction, type Step, scriptedProvider, withSession } from "./context-harness";

const SMALL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 6000, maxOutputTokens: 1500 };
const THRESHOLD = computeThreshold(6000, 1500);
const filler = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1))).slice(0, n);

/** Ten heavy steps (enough to compact), then small ones, then one answer per later turn. */
function script(calls = 14) {
  return (_r: unknown, n: number): Step => {
    if (n >= calls) return { kind: "answer", text: `done (${n})` };
    if (n < 10)
      return { kind: "call", name: "write_file", args: { path: `s/${n}.md`, content: filler(1800, `part${n}`) } };
    return { kind: "call", name: "list_files", args: { path: "s" } };
  };
}

const checkpointEvents = (events: Event[]) =>
  events.flatMap((e) => {
    const p = parseCheckpointPayload(e.actions?.stateDelta?.checkpoint);
    return p ? [{ ...p, eventSeq: e.seq }] : [];
  });

type Row = {
  id: string;
  through_seq: number;
  source_digest: string;
  prev_id: string | null;
  summary: string;
  event_seq: number;
};
const rowOf = (h: Harness, id: string) =>
  h.state.storage.sql.exec<Row>("SELECT * FROM checkpoints WHERE id = ?", id).toArray()[0];
const lastTurnRequest = (p: ReturnType<typeof scriptedProvider>) => p.recorded.filter((r) => r.kind === "turn").at(-1)!;
const lastModelRequest = (h: Harness) => h.events().findLast((e) => e.actions?.modelRequest)!.actions!.modelRequest!;

describe("checkpoints are a cache of their events", () => {
  it("a tampered or deleted row is discarded and rebuilt from its event", { timeout: 60_000 }, async () => {
    const provider = scriptedProvider({ next: script() });
    await withSession({ provider, model: SMALL }, async (h) => {
      await h.runTurn("GOAL: write the parts");
      const cps = checkpointEvents(h.events());
      expect(cps.length).toBeGreaterThanOrEqual(1);
      const cp = cps.at(-1)!;
      const asRow = {
        id: cp.id,
        through_seq: cp.throughSeq,
        source_digest: cp.sourceDigest,
        prev_id: cp.prevId,
        summary: cp.summary,
        event_seq: cp.eventSeq,
      };
      expect(rowOf(h, cp.id)).toEqual(asRow);

      const tamperings: [string, () => void][] = [
        ["summary", () => h.state.storage.sql.exec("UPDATE checkpoints SET summary = 'TAMPERED' WHERE id = ?", cp.id)],
        [
          "source_digest",
          () =>
            h.state.storage.sql.exec("UPDATE checkpoints SET source_digest = ? WHERE id = ?", "0".repeat(64), cp.id),
        ],
        ["deleted", () => h.state.storage.sql.exec("DELETE FROM checkpoints WHERE id = ?", cp.id)],
      ];
      for (const [what, tamper] of tamperings) {
        tamper();
        // GET /context reads the event, not the row, and changes nothing.
        const view = h.runtime.buildContext();
        expect(view.checkpoint, what).toEqual({
          id: cp.id,
          throughSeq: cp.throughSeq,
          sourceDigest: cp.sourceDigest,
          summary: cp.summary,
        });
        expect(JSON.stringify(view.messages)).not.toContain("TAMPERED");
        // The next model call repairs the cache and is built on the event's summary.
        await h.runTurn(`continue after ${what}`);
        expect(lastModelRequest(h).checkpointId, what).toBe(cp.id);
        const sent = JSON.stringify(lastTurnRequest(provider).request.messages);
        expect(sent).toContain(JSON.stringify(cp.summary).slice(1, -1));
        expect(sent).not.toContain("TAMPERED");
        expect(rowOf(h, cp.id), what).toEqual(asRow);
      }
      // No further compaction was needed for these short turns, so the same checkpoint was tested throughout.
      expect(checkpointEvents(h.events()).length).toBe(cps.length);
    });
  });

  it("a checkpoint event whose sourceDigest disagrees with the log is not used", { timeout: 60_000 }, async () => {
    const provider = scriptedProvider({ next: script() });
    await withSession({ provider, model: SMALL }, async (h) => {
      await h.runTurn("GOAL: write the parts");
      const good = checkpointEvents(h.events()).at(-1)!;
      const bogus = {
        id: "ckpt_bogus",
        throughSeq: good.throughSeq + 2,
        sourceDigest: "ab".repeat(32),
        prevId: good.id,
        summary: good.summary.replace("## Open items", "BOGUS FACT\n\n## Open items"),
        placeholders: [],
      };
      expect(validateSummary(bogus.summary, 4000).ok).toBe(true);
      const [event] = h.runtime.commit([checkpointDraft(bogus, { turnId: "t-bogus", runId: "r-bogus" })]);
      // Even a cache row that agrees with the bogus event cannot vouch for it.
      writeCheckpointRow(h.state.storage.sql, { ...bogus, eventSeq: event!.seq });

      const loaded = loadLatestCheckpoint({ store: h.store, sql: h.state.storage.sql }, { repair: false });
      expect(loaded.checkpoint?.id).toBe(good.id);
      expect(loaded.discarded).toEqual([
        { eventSeq: event!.seq, reason: `sourceDigest disagrees with digest(${bogus.throughSeq})` },
      ]);
      expect(h.runtime.buildContext().checkpoint?.id).toBe(good.id);

      await h.runTurn("continue");
      expect(lastModelRequest(h).checkpointId).toBe(good.id);
      expect(JSON.stringify(lastTurnRequest(provider).request.messages)).not.toContain("BOGUS FACT");
      expect(rowOf(h, "ckpt_bogus")).toBeUndefined();
      expect(rowOf(h, good.id)?.summary).toBe(good.summary);
    });
  });
});

describe("when the model cannot summarise", () => {
  it("retries, then checkpoints a deterministic extract, still under budget", { timeout: 60_000 }, async () => {
    const provider = scriptedProvider({ next: script(20), summarise: () => "Sorry, I can't help with that." });
    await withSession({ provider, model: SMALL }, async (h) => {
      await h.runTurn("GOAL: write the parts and keep going");
      const events = h.events();
      const cps = checkpointEvents(events);
      expect(cps.length).toBeGreaterThanOrEqual(1);
      for (const cp of cps) {
        expect(cp.method).toBe("extract");
        expect(validateSummary(cp.summary, 4 * 1500).ok).toBe(true);
        expect(cp.summary).toContain("GOAL: write the parts");
        expect(cp.summary).toMatch(/write_file/);
      }
      // Three attempts per compaction (the first and two retries), each a proper compaction request.
      const summaries = provider.recorded.filter((r) => r.kind === "summary");
      expect(summaries.length).toBe(3 * cps.length);
      for (const r of provider.recorded) expect(r.tokens).toBeLessThanOrEqual(THRESHOLD);
      expect(events.at(-1)!.actions?.turnClose?.reason).toBe("completed");
      expect(events.filter((e) => e.content?.type === "functionCall")).toHaveLength(20);
    });
  });
});

describe("when even the working set does not fit", () => {
  it("a recent 20 KB result becomes a placeholder (archived first) instead of overflowing", {
    timeout: 60_000,
  }, async () => {
    const fetch = (async () => new Response(filler(20_000, "mid"))) as unknown as typeof globalThis.fetch;
    const provider = scriptedProvider({
      next: (_r, n) =>
        n === 0
          ? { kind: "call", name: "http_fetch", args: { url: "https://data.test/mid" } }
          : { kind: "answer", text: "read it" },
    });
    await withSession({ provider, model: SMALL, fetch }, async (h) => {
      await h.runTurn("GOAL: fetch the middle page");
      for (const r of provider.recorded) expect(r.tokens).toBeLessThanOrEqual(THRESHOLD);
      const [cp] = checkpointEvents(h.events());
      expect(cp?.placeholders).toHaveLength(1);
      expect(h.store.blobs.check(cp!.placeholders[0]!)).toBe(true);
      const shown = provider.recorded.filter((r) => r.kind === "turn")[1]!.request.messages.at(-1)!;
      expect(shown.role).toBe("tool");
      expect((shown.content as { output: unknown }[])[0]!.output).toMatchObject({
        offloaded: true,
        sha256: cp!.placeholders[0]!.sha256,
      });
    });
  });

  it("a single message larger than the window is summarised in pieces that each fit", { timeout: 60_000 }, async () => {
    const provider = scriptedProvider({ next: () => ({ kind: "answer", text: "understood" }) });
    await withSession({ provider, model: SMALL }, async (h) => {
      const text = `GOAL: digest this brief\n${filler(40_000, "brief")}`;
      await h.runTurn(text);
      for (const r of provider.recorded) expect(r.tokens).toBeLessThanOrEqual(THRESHOLD);
      const summaries = provider.recorded.filter((r) => r.kind === "summary");
      expect(summaries.length).toBeGreaterThanOrEqual(3);
      // Each piece after the first merges into the running summary; together they cover the whole message.
      const covered = summaries.map(
        (s) =>
          /New events since then:\n([\s\S]*)\n\nWrite the updated/.exec(
            s.request.messages.at(-1)!.content as string,
          )![1]!,
      );
      expect(covered.join("").replace(/^\[seq \d+\] user: /, "")).toBe(text);
      const [cp] = checkpointEvents(h.events());
      expect(cp?.method).toBe("model");
      expect(cp?.summary).toContain("GOAL: digest this brief");
      // The user message itself is covered by the checkpoint; the model reads the summary instead.
      const first = provider.recorded.find((r) => r.kind === "turn")!.request;
      expect(first.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(looksLikeCompaction(first)).toBe(false);
      expect(first.messages[1]!.content).toContain(cp!.summary);
      expect(h.events().find((e) => e.content?.type === "text" && e.author === "user")?.content).toEqual({
        type: "text",
        text,
      });
    });
  });
});
