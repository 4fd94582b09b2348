/**
 * What a feature shows the model (docs/design.md#plugs): `beforeTurn` records a hidden
 * `stateDelta` before the turn's first model request, `fold` keeps it as the feature's summary
 * slice, and `context` turns the slice into system text and a tool at every call, so a request
 * rebuilt from the log by another runtime instance is byte for byte the recorded one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assembleContext } from "../../src/context";
import { FEATURES } from "../../src/features";
import { type BlobMeta, type Event, isBlobRef } from "../../src/log";
import type { ModelConfig, ModelPart, ModelProvider, ModelRequest } from "../../src/model/types";
import { ProviderError } from "../../src/model/types";
import { BASE_SYSTEM_PROMPT } from "../../src/runtime";
import { requestDigest } from "../../src/runtime/drafts";
import type { RuntimeFeature, TurnPort } from "../../src/runtime/feature";
import { defineTool } from "../../src/tools/custom";
import { scriptedProvider, withSession } from "./context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };

type Seen = Omit<TurnPort, "putBlob" | "readBlob" | "now" | "signal" | "summary">;

/** A fixture: shows the model a note kept outside the session, recorded in the log as a blob. */
function notesFeature(source: { note: string | null }, seen: Seen[] = []): RuntimeFeature {
  const noteTool = defineTool({
    name: "fixture_read_note",
    description: "Reads the note",
    input: z.object({}),
    effect: "read",
    run: async () => ({ note: source.note }),
  });
  return {
    name: "fixture-notes",
    fold: (slice, e: Event) => {
      const d = e.actions?.stateDelta?.fixtureNote;
      return isBlobRef(d) ? d.$blob : slice;
    },
    beforeTurn: async (port) => {
      const { summary: _s, putBlob: _p, readBlob: _r, now: _n, signal: _g, ...rest } = port;
      seen.push(structuredClone(rest));
      const last = port.slice as BlobMeta | undefined;
      if (source.note === null || (last && port.readBlob(last.sha256) === source.note)) return [];
      const meta = port.putBlob(source.note);
      return [
        {
          author: "runtime",
          modelVisibility: "hidden",
          ...port.base,
          actions: { stateDelta: { fixtureNote: { $blob: meta } } },
        },
      ];
    },
    context: ({ slice, readBlob }) => {
      const meta = slice as BlobMeta | undefined;
      return meta ? { system: `Note: ${readBlob(meta.sha256)}`, tools: [noteTool] } : {};
    },
  };
}

const noteDeltas = (events: Event[]) => events.filter((e) => e.actions?.stateDelta?.fixtureNote);
const systemOf = (r: ModelRequest) => r.messages[0]!.content as string;

describe("a feature's context hooks", () => {
  it("records what it shows before the first model request, and shows it after the session's own system", async () => {
    const source = { note: "the deploy window is Tuesday" };
    const seen: Seen[] = [];
    const provider = scriptedProvider({
      next: (_r, n) =>
        n === 0 ? { kind: "call", name: "fixture_read_note", args: {} } : { kind: "answer", text: "ok" },
    });
    await withSession(
      {
        provider,
        model: MODEL,
        options: { system: "Be brief." },
        features: [...FEATURES, notesFeature(source, seen)],
        principal: "p-1",
        env: { NOTES: "binding" },
      },
      async (h) => {
        await h.runTurn("when is the deploy?");
        const events = h.events();
        const [delta, ...more] = noteDeltas(events);
        expect(more).toEqual([]);
        expect(delta!.modelVisibility).toBe("hidden");
        expect(delta!.seq).toBeLessThan(events.find((e) => e.actions?.modelRequest)!.seq);
        expect(seen).toEqual([
          {
            slice: undefined,
            options: { system: "Be brief." },
            sessionId: h.sessionId,
            principal: "p-1",
            env: { NOTES: "binding" },
            base: { turnId: delta!.turnId, runId: delta!.runId },
          },
        ]);
        // Every call of the turn shows the note after the base prompt and the session's system.
        const turn = provider.recorded.map((r) => r.request);
        expect(turn).toHaveLength(2);
        for (const r of turn) {
          expect(systemOf(r)).toBe(`${BASE_SYSTEM_PROMPT}\n\nBe brief.\n\nNote: the deploy window is Tuesday`);
          expect(r.tools.at(-1)!.name).toBe("fixture_read_note");
        }
        // The shown tool runs.
        const response = events.find((e) => e.content?.type === "functionResponse")!.content;
        expect(response).toMatchObject({ status: "ok", response: { note: "the deploy window is Tuesday" } });
        // The slice is in the summary: the next turn sees it and, unchanged, records nothing.
        expect(h.runtime.summary!.features!["fixture-notes"]).toEqual(
          (delta!.actions!.stateDelta!.fixtureNote as { $blob: BlobMeta }).$blob,
        );
        await h.runTurn("again");
        expect(noteDeltas(h.events())).toHaveLength(1);
        expect(seen[1]!.slice).toEqual(h.runtime.summary!.features!["fixture-notes"]);
        // A changed note is recorded at the next turn and shown from then on.
        source.note = "the deploy window moved to Friday";
        await h.runTurn("and now?");
        expect(noteDeltas(h.events())).toHaveLength(2);
        expect(systemOf(provider.recorded.at(-1)!.request)).toMatch(/Note: the deploy window moved to Friday$/);
      },
    );
  });

  it("a request rebuilt by a fresh runtime from the log is byte for byte the recorded one, whatever the source says now", async () => {
    const source = { note: "remember the milk" };
    const provider = scriptedProvider({ next: () => ({ kind: "answer", text: "noted" }) });
    await withSession({ provider, model: MODEL, features: [...FEATURES, notesFeature(source)] }, async (h) => {
      await h.runTurn("hi");
      const recorded = h.events().findLast((e) => e.actions?.modelRequest)!.actions!.modelRequest!;
      expect(requestDigest(provider.recorded[0]!.request)).toBe(recorded.requestDigest);
      source.note = "something else entirely";
      const again = h.reopen();
      const rebuilt = assembleContext(again.deps, again.contextInput(MODEL), null, recorded.throughSeq).ctx;
      expect(requestDigest(rebuilt)).toBe(recorded.requestDigest);
      expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(provider.recorded[0]!.request.messages));
    });
  });

  it("an attempt retried by a fresh runtime after a failure sends the same bytes and records no second request", async () => {
    const source = { note: "alpha" };
    const sent: ModelRequest[] = [];
    const provider: ModelProvider = {
      name: "openai",
      async *stream(request: ModelRequest): AsyncGenerator<ModelPart> {
        sent.push(structuredClone(request));
        if (sent.length === 1) throw new ProviderError("overloaded", 503, true);
        yield { type: "text-delta", text: "done" };
        yield { type: "finish", reason: "stop" };
      },
    };
    const clock = { now: Date.now() };
    const policy = { backoffMs: [1000, 1000, 1000, 1000] };
    await withSession(
      { provider, model: MODEL, features: [...FEATURES, notesFeature(source)], policy, now: () => clock.now },
      async (h) => {
        await h.runtime.postMessage({ text: "go", source: "http" });
        await h.runtime.alarm();
        expect(sent).toHaveLength(1);
        source.note = "beta";
        const again = h.reopen();
        clock.now += 5000;
        for (let i = 0; again.summary?.openTurn && i < 10; i++) await again.alarm();
        expect(sent).toHaveLength(2);
        expect(JSON.stringify(sent[1])).toBe(JSON.stringify(sent[0]));
        expect(h.events().filter((e) => e.actions?.modelRequest)).toHaveLength(1);
        expect(systemOf(sent[1]!)).toMatch(/Note: alpha$/);
      },
    );
  });
});
