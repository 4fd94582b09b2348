/**
 * What a session is shown of its owner's memory (docs/API.md#memory): the pinned entries at its
 * first model call, recorded once as a hidden `stateDelta.memoryShown` with the text in a blob,
 * so a request rebuilt later is byte for byte the one sent, whatever the store says by then.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { assembleContext } from "../../../src/context";
import { memoryOf } from "../../../src/features/memory/stub";
import { directoryIdOf } from "../../../src/http/types";
import type { Event } from "../../../src/log";
import type { ModelConfig, ModelRequest } from "../../../src/model/types";
import { requestDigest } from "../../../src/runtime/drafts";
import { scriptedProvider, withSession } from "../../do/context-harness";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };
const systemOf = (r: ModelRequest) => r.messages[0]!.content as string;
const shownDeltas = (events: Event[]) => events.filter((e) => e.actions?.stateDelta?.memoryShown);

let n = 0;
/** A principal of its own per test: its directory id, and its memory object seeded with `entries` in order. */
async function principalWith(entries: { text: string; pinned?: boolean; topic?: string }[]) {
  const directoryId = directoryIdOf(env, `memory-context-${Date.now()}-${n++}`).toString();
  const memory = memoryOf(env, directoryId);
  const ids: string[] = [];
  for (const [i, e] of entries.entries()) {
    const r = await memory.add({
      id: `mem_${(i + 1).toString(16).padStart(32, "0")}`,
      text: e.text,
      ...(e.topic ? { topic: e.topic } : {}),
      pinned: e.pinned ?? false,
      source: { api: true },
      createdAt: new Date().toISOString(),
    });
    if (!r.ok) throw new Error(r.error.message);
    ids.push(r.value.entry.id);
  }
  // A stub is bound to the object that made it: each caller makes its own.
  return { directoryId, memory: () => memoryOf(env, directoryId), ids };
}

const answer = () => scriptedProvider({ next: () => ({ kind: "answer", text: "ok" }) });

describe("memory shown to a session", () => {
  it("the first model call shows the pinned entries newest first, recorded once; store changes never change the session's requests", async () => {
    const p = await principalWith([
      { text: "Our fiscal year starts in April", pinned: true, topic: "finance" },
      { text: "An unpinned detail about parking" },
      { text: "Deploys happen on Tuesdays", pinned: true },
    ]);
    const provider = answer();
    await withSession({ provider, model: MODEL, directoryId: p.directoryId, env: env as never }, async (h) => {
      await h.runTurn("hello");
      const first = provider.recorded[0]!.request;
      const system = systemOf(first);
      expect(system).toContain("- Deploys happen on Tuesdays\n- [finance] Our fiscal year starts in April");
      expect(system).not.toContain("parking");
      const [delta, ...more] = shownDeltas(h.events());
      expect(more).toEqual([]);
      expect(delta!.modelVisibility).toBe("hidden");
      expect(delta!.seq).toBeLessThan(h.events().find((e) => e.actions?.modelRequest)!.seq);
      const shown = delta!.actions!.stateDelta!.memoryShown as any;
      expect(shown.ids).toEqual([p.ids[2], p.ids[0]]);
      expect(shown.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(h.store.blobs.readText(shown.text.$blob.sha256)).toBe(system.slice(system.indexOf("What you remember")));

      // The store changes: a new pinned entry, one unpinned, one forgotten.
      await p.memory().add({
        id: `mem_${"f".repeat(32)}`,
        text: "A new pinned fact",
        pinned: true,
        source: { api: true },
        createdAt: new Date().toISOString(),
      });
      await p.memory().pin(p.ids[2]!, false);
      await p.memory().forget(p.ids[0]!);

      const recorded = h.events().findLast((e) => e.actions?.modelRequest)!.actions!.modelRequest!;
      expect(requestDigest(first)).toBe(recorded.requestDigest);
      const again = h.reopen();
      const rebuilt = assembleContext(again.deps, again.contextInput(MODEL), null, recorded.throughSeq).ctx;
      expect(requestDigest(rebuilt)).toBe(recorded.requestDigest);
      expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(first.messages));

      // A later turn keeps the same system text and records nothing more.
      await h.runTurn("and again");
      expect(systemOf(provider.recorded.at(-1)!.request)).toBe(system);
      expect(shownDeltas(h.events())).toHaveLength(1);
    });
    // A new session of the same principal is shown the store as it is now.
    const next = answer();
    await withSession({ provider: next, model: MODEL, directoryId: p.directoryId, env: env as never }, async (h) => {
      await h.runTurn("hi");
      const system = systemOf(next.recorded[0]!.request);
      expect(system).toContain("- A new pinned fact");
      expect(system).not.toContain("Tuesdays");
      expect(system).not.toContain("fiscal");
    });
  });

  it("shows at most 4 KiB of pinned text, newest first", async () => {
    const big = (c: string) => c.repeat(1500);
    const p = await principalWith([
      { text: big("a"), pinned: true },
      { text: big("b"), pinned: true },
      { text: big("c"), pinned: true },
    ]);
    const provider = answer();
    await withSession({ provider, model: MODEL, directoryId: p.directoryId, env: env as never }, async (h) => {
      await h.runTurn("hello");
      const system = systemOf(provider.recorded[0]!.request);
      expect(system).toContain(big("c"));
      expect(system).toContain(big("b"));
      expect(system).not.toContain(big("a"));
      expect((shownDeltas(h.events())[0]!.actions!.stateDelta!.memoryShown as any).ids).toEqual([p.ids[2], p.ids[1]]);
    });
  });

  it("another principal's session is shown nothing of it, and recalls nothing of it", async () => {
    const a = await principalWith([{ text: "the wombatcode secret plan", pinned: true }]);
    const b = await principalWith([]);
    const provider = scriptedProvider({
      next: (_r, i) =>
        i === 0 ? { kind: "call", name: "recall", args: { query: "wombatcode plan" } } : { kind: "answer", text: "ok" },
    });
    await withSession({ provider, model: MODEL, directoryId: b.directoryId, env: env as never }, async (h) => {
      await h.runTurn("what do you know?");
      for (const r of provider.recorded) expect(JSON.stringify(r.request)).not.toContain("wombatcode secret");
      expect(shownDeltas(h.events())).toEqual([]);
      const response = h.events().find((e) => e.content?.type === "functionResponse")!.content as any;
      expect(response).toMatchObject({ status: "ok", response: { entries: [], truncated: false } });
    });
    expect((await a.memory().list({ q: "wombatcode", limit: 5 })).entries).toHaveLength(1);
  });

  it("memory off: nothing shown, no memory tools; read: recall only, and remember is refused as unknown", async () => {
    const p = await principalWith([{ text: "Pinned for everyone", pinned: true }]);
    const off = answer();
    await withSession(
      { provider: off, model: MODEL, directoryId: p.directoryId, env: env as never, options: { memory: "off" } },
      async (h) => {
        await h.runTurn("hello");
        const r = off.recorded[0]!.request;
        expect(systemOf(r)).not.toContain("Pinned for everyone");
        expect(r.tools.map((t) => t.name).filter((t) => ["remember", "recall", "forget"].includes(t))).toEqual([]);
        expect(shownDeltas(h.events())).toEqual([]);
      },
    );
    const read = scriptedProvider({
      next: (_r, i) =>
        i === 0 ? { kind: "call", name: "remember", args: { text: "sneaky" } } : { kind: "answer", text: "ok" },
    });
    await withSession(
      { provider: read, model: MODEL, directoryId: p.directoryId, env: env as never, options: { memory: "read" } },
      async (h) => {
        await h.runTurn("hello");
        const r = read.recorded[0]!.request;
        expect(systemOf(r)).toContain("Pinned for everyone");
        expect(r.tools.map((t) => t.name).filter((t) => ["remember", "recall", "forget"].includes(t))).toEqual([
          "recall",
        ]);
        const response = h.events().find((e) => e.content?.type === "functionResponse")!.content as any;
        expect(response.status).toBe("error");
      },
    );
    expect((await p.memory().list({ q: "sneaky", limit: 5 })).entries).toEqual([]);
  });
});
