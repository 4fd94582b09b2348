import { describe, expect, it } from "vitest";
import { computeThreshold, loadLatestCheckpoint, parseCheckpointPayload } from "../../src/context";
import { canonical, type Event, verifyRows } from "../../src/log";
import type { ModelConfig, ModelRequest } from "../../src/model/types";
import { lastResults, looksLikeCompaction, type Step, scriptedProvider, withSession } from "./context-harness";

const SMALL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 6000, maxOutputTokens: 1500 };
const THRESHOLD = computeThreshold(6000, 1500); // 4380
const CALLS = 36;

const filler = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1))).slice(0, n);
const BIG = 200_000;
const HUGE = 1_048_576;

/** http_fetch answers: 5 KB pages (moderately large), one 200 KB and one 1 MB body (offloaded at once). */
function fakeFetch(): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const size = url.pathname === "/big" ? BIG : url.pathname === "/huge" ? HUGE : 5_000;
    return new Response(filler(size, `data${url.pathname.replace(/\W/g, "")}`), {
      headers: { "content-type": "text/plain" },
    });
  }) as typeof fetch;
}

/** Writes sections, reads the plan, fetches pages; at 12 a 200 KB body it pages back with read_archive; at 20 a 1 MB one. */
function longScript() {
  const state: { ref: string | null; next: number | null; pages: string[] } = { ref: null, next: null, pages: [] };
  const next = (r: ModelRequest, n: number): Step => {
    if (n >= CALLS) return { kind: "answer", text: "The report is written." };
    if (n === 0)
      return { kind: "call", name: "write_file", args: { path: "notes/plan.md", content: filler(1500, "plan") } };
    if (n === 12) return { kind: "call", name: "http_fetch", args: { url: "https://data.test/big" } };
    if (n === 13 || n === 14) {
      const out = lastResults(r)[0]?.output as { ref?: string; nextOffset?: number; text?: string };
      if (n === 13) state.ref = out.ref ?? null;
      else {
        state.pages.push(out.text ?? "");
        state.next = out.nextOffset ?? null;
      }
      return {
        kind: "call",
        name: "read_archive",
        args: { ref: state.ref, mode: "read", offset: n === 13 ? 0 : state.next },
      };
    }
    if (n === 15) state.pages.push((lastResults(r)[0]!.output as { text: string }).text);
    if (n === 20) return { kind: "call", name: "http_fetch", args: { url: "https://data.test/huge" } };
    switch (n % 5) {
      case 0:
        return {
          kind: "call",
          name: "write_file",
          args: { path: `report/section-${n}.md`, content: `# section ${n}\n${filler(1000, "lorem")}` },
          text: `Writing section ${n}.`,
        };
      case 1:
        return { kind: "call", name: "read_file", args: { path: "notes/plan.md" } };
      case 2:
        return { kind: "call", name: "http_fetch", args: { url: `https://data.test/page${n}` } };
      case 3:
        return { kind: "call", name: "list_files", args: {} };
      default:
        return { kind: "call", name: "search_files", args: { pattern: "# section" } };
    }
  };
  return { next, state };
}

const LONG_TOOLS = [
  "list_files",
  "read_file",
  "search_files",
  "write_file",
  "edit_file",
  "delete_file",
  "http_fetch",
  "read_archive",
];

const checkpointsOf = (events: Event[]) =>
  events.flatMap((e) => {
    const p = parseCheckpointPayload(e.actions?.stateDelta?.checkpoint);
    return p ? [{ ...p, eventSeq: e.seq }] : [];
  });

describe("a long session in a 6,000-token window", () => {
  it("runs 36 tool calls in one turn, every request under the threshold, history complete", {
    timeout: 120_000,
  }, async () => {
    const script = longScript();
    const provider = scriptedProvider({ next: script.next });
    // The tool set is pinned: this budget-sensitive run is about compaction, and every new
    // built-in tool's schema would otherwise move its waterlines.
    await withSession({ provider, model: SMALL, fetch: fakeFetch(), options: { tools: LONG_TOOLS } }, async (h) => {
      await h.runTurn("GOAL: write a sectioned report from the fetched pages");
      const events = h.events();

      // Every request the model received, the compaction requests included, is under the threshold.
      const largest = Math.max(...provider.recorded.map((r) => r.tokens));
      const requests = events.flatMap((e) => (e.actions?.modelRequest ? [e.actions.modelRequest] : []));
      const largestEstimate = Math.max(...requests.map((r) => r.estimatedTokens));
      const summaries = provider.recorded.filter((r) => r.kind === "summary");
      console.log(
        `[context] 6k window: ${provider.recorded.length} requests (${summaries.length} compaction), largest ${largest} tokens (chars/4), runtime estimate max ${largestEstimate}, threshold ${THRESHOLD}`,
      );
      for (const r of provider.recorded) expect(r.tokens).toBeLessThanOrEqual(THRESHOLD);
      expect(largestEstimate).toBeLessThanOrEqual(THRESHOLD);
      // Compaction requests say so (no tools, a last user message asking for the summary); turn requests never look like one.
      for (const r of summaries) expect(r.request.messages.at(-1)!.content).toMatch(/summary/);
      for (const r of provider.recorded.filter((x) => x.kind === "turn"))
        expect(looksLikeCompaction(r.request)).toBe(false);

      // The whole turn ran: 36 calls, each answered, closed as completed.
      const calls = events.filter((e) => e.content?.type === "functionCall");
      const responses = events.filter((e) => e.content?.type === "functionResponse");
      expect(calls).toHaveLength(CALLS);
      expect(responses.map((e) => (e.content as { callId: string }).callId)).toEqual(
        calls.map((e) => (e.content as { callId: string }).callId),
      );
      expect(new Set(events.map((e) => e.turnId).filter(Boolean)).size).toBe(1);
      expect(events.at(-1)!.actions?.turnClose?.reason).toBe("completed");

      // History is never rewritten: contiguous, verifiable, every result whole in the log.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      const v = verifyRows(h.store.scanRows(), h.sessionId, h.store.blobs);
      expect(v.problems).toEqual([]);
      expect(v.ok).toBe(true);
      const bigEvent = responses.find((e) => canonical((e.content as { response: unknown }).response).length > BIG)!;
      expect(bigEvent.actions?.stateDelta?.offload).toBeTruthy();

      // Compaction happened mid-turn, each checkpoint committed before the request that uses it.
      const cps = checkpointsOf(events);
      expect(cps.length).toBeGreaterThanOrEqual(2);
      for (const cp of cps) {
        expect(h.store.digestAt(cp.throughSeq)).toBe(cp.sourceDigest);
        const used = events.find((e) => e.seq > cp.eventSeq && e.actions?.modelRequest);
        expect(used?.actions?.modelRequest?.checkpointId).toBe(cp.id);
      }
      cps.slice(1).forEach((cp, i) => {
        expect(cp.prevId).toBe(cps[i]!.id);
        expect(cp.throughSeq).toBeGreaterThan(cps[i]!.throughSeq);
      });
      // docs/API.md §7.29: each compaction call is in the log, as its own invocation, before it was sent.
      const compactions = events.filter((e) => e.actions?.modelRequest?.purpose === "compaction");
      expect(compactions).toHaveLength(summaries.length);
      expect(new Set(compactions.map((e) => e.invocationId)).size).toBe(summaries.length);
      const turnInvocations = new Set(
        events.filter((e) => e.actions?.modelRequest && !e.actions.modelRequest.purpose).map((e) => e.invocationId),
      );
      for (const e of compactions) expect(turnInvocations.has(e.invocationId)).toBe(false);
      // Each turn request names the checkpoint it was built on and the prefix it covers.
      for (const e of events.filter((x) => x.actions?.modelRequest && !x.actions.modelRequest.purpose)) {
        const latest = cps.filter((c) => c.eventSeq < e.seq).at(-1);
        expect(e.actions!.modelRequest!.checkpointId).toBe(latest?.id ?? null);
        expect(e.actions!.modelRequest!.throughSeq).toBe(e.seq - 1);
      }

      // Incremental: a compaction reads the previous summary and the events after it, never the whole session.
      for (const s of summaries) {
        const user = s.request.messages.at(-1)!.content as string;
        const seqs = [...user.matchAll(/\[seq (\d+)\] (?:user|assistant|\w+ result)/g)].map((m) => Number(m[1]));
        const prev = cps.filter((c) => user.includes(c.summary)).at(-1);
        if (prev) expect(Math.min(...seqs)).toBeGreaterThan(prev.throughSeq);
      }
      expect(
        summaries
          .slice(1)
          .every((s) => cps.some((c) => (s.request.messages.at(-1)!.content as string).includes(c.summary))),
      ).toBe(true);
      // The goal survives every compaction.
      expect(cps.at(-1)!.summary).toContain("GOAL: write a sectioned report");

      // Older results over 4 KiB became placeholders at a compaction, archived and checked first.
      const placed = cps.flatMap((c) => c.placeholders);
      expect(placed.length).toBeGreaterThan(0);
      for (const p of placed) {
        expect(h.store.blobs.check(p)).toBe(true);
        expect(new TextEncoder().encode(p.preview).byteLength).toBeLessThanOrEqual(512);
      }

      // The 200 KB result reached the model as a placeholder, and read_archive paged it back exactly.
      const afterBig = provider.recorded.filter((r) => r.kind === "turn")[13]!.request;
      const shown = lastResults(afterBig)[0]!.output as Record<string, unknown>;
      const bigText = canonical((bigEvent.content as { response: unknown }).response);
      expect(shown).toMatchObject({ offloaded: true, tool: "http_fetch", bytes: bigText.length });
      expect(shown.ref).toBe(`archive://${shown.sha256}`);
      expect(new TextEncoder().encode(shown.preview as string).byteLength).toBeLessThanOrEqual(512);
      expect(script.state.pages.join("")).toBe(bigText.slice(0, 2 * 4096));

      // Between compactions every request extends the previous one element by element (prompt caches keep hitting).
      let extended = 0;
      provider.recorded.forEach((r, i) => {
        const prev = provider.recorded[i - 1];
        if (prev?.kind !== "turn" || r.kind !== "turn") return;
        const a = prev.request.messages.map((m) => canonical(m));
        const b = r.request.messages.map((m) => canonical(m));
        expect(b.slice(0, a.length)).toEqual(a);
        expect(canonical(r.request.tools)).toBe(canonical(prev.request.tools));
        extended++;
      });
      expect(extended).toBeGreaterThan(25);

      // What a 1 MB result costs in context: its placeholder.
      const afterHuge = provider.recorded.filter((r) => r.kind === "turn")[21]!.request;
      const hugePart = lastResults(afterHuge)[0]!;
      expect((hugePart.output as { offloaded: boolean; bytes: number }).bytes).toBeGreaterThan(HUGE);
      console.log(
        `[context] a 1 MB tool result costs ${Math.ceil(JSON.stringify(hugePart).length / 4)} tokens in context (chars/4 of its placeholder part)`,
      );

      // GET /context shows the same view the next call would get, from the latest checkpoint on.
      const view = h.runtime.buildContext();
      expect(view.checkpoint?.id).toBe(cps.at(-1)!.id);
      expect(view.rawFromSeq).toBe(cps.at(-1)!.throughSeq + 1);
      expect(view.threshold).toBe(THRESHOLD);
      expect(view.estimatedTokens).toBeLessThanOrEqual(THRESHOLD);
      expect(loadLatestCheckpoint({ store: h.store, sql: h.state.storage.sql }, { repair: false }).cacheRepaired).toBe(
        false,
      );
    });
  });
});
