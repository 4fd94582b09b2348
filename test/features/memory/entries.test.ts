import { describe, expect, it } from "vitest";
import { MEMORY_LIMITS } from "../../../src/contract";
import {
  boundRecall,
  entryBytes,
  ftsQuery,
  MEMORY_ID,
  memoryIdFor,
  memorySystemText,
  memoryToolsFor,
  pinnedToShow,
  refuseAdd,
  shownDigest,
} from "../../../src/features/memory/entries";
import { foldMemoryShown } from "../../../src/features/memory/shown";

describe("memory entry ids", () => {
  it("derive from the idempotency key: the same key the same id, another key or kind another id", () => {
    const a = memoryIdFor("call", "sess:call-1");
    expect(a).toMatch(MEMORY_ID);
    expect(memoryIdFor("call", "sess:call-1")).toBe(a);
    expect(memoryIdFor("call", "sess:call-2")).not.toBe(a);
    expect(memoryIdFor("api", "sess:call-1")).not.toBe(a);
  });
});

describe("memory limits", () => {
  it("counts text and topic in UTF-8 bytes", () => {
    expect(entryBytes({ text: "é€" })).toBe(5);
    expect(entryBytes({ text: "ab", topic: "fin" })).toBe(5);
  });

  it("refuses the 10,001st entry and any entry past 8 MiB, and nothing below", () => {
    const { entries, totalBytes } = MEMORY_LIMITS;
    expect(refuseAdd({ entries: entries - 1, bytes: 0 }, 1)).toBeNull();
    expect(refuseAdd({ entries, bytes: 0 }, 1)).toMatch(/at most 10000 entries/);
    expect(refuseAdd({ entries: 1, bytes: totalBytes - 10 }, 10)).toBeNull();
    expect(refuseAdd({ entries: 1, bytes: totalBytes - 10 }, 11)).toMatch(/at most 8388608 bytes/);
  });
});

describe("ftsQuery", () => {
  it("quotes each distinct word, so no word is an FTS5 operator, and matches any", () => {
    expect(ftsQuery("Fiscal year? fiscal NEAR(x) AND -y*")).toBe('"fiscal" OR "year" OR "near" OR "x" OR "and" OR "y"');
    expect(ftsQuery('"; DROP TABLE entries; --')).toBe('"drop" OR "table" OR "entries"');
    expect(ftsQuery("Überweisung 2026")).toBe('"überweisung" OR "2026"');
  });

  it("is null without a word, and keeps at most 32 words", () => {
    expect(ftsQuery("?! -- ()")).toBeNull();
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    expect(ftsQuery(many)!.split(" OR ")).toHaveLength(32);
  });
});

describe("boundRecall", () => {
  const entry = (i: number, size: number) => ({ id: `mem_${i}`, text: "x".repeat(size), pinned: false });

  it("keeps the best entries while the answer fits 16 KiB, and says when it left some out", () => {
    const entries = Array.from({ length: 20 }, (_, i) => entry(i, 2048));
    const r = boundRecall(entries);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(MEMORY_LIMITS.recallBytes);
    expect(r.truncated).toBe(true);
    expect(r.entries).toEqual(entries.slice(0, r.entries.length));
    // One more entry would not have fitted.
    const oneMore = { entries: entries.slice(0, r.entries.length + 1), truncated: true };
    expect(Buffer.byteLength(JSON.stringify(oneMore))).toBeGreaterThan(MEMORY_LIMITS.recallBytes);
  });

  it("gives everything when it fits, counting multi-byte text in bytes", () => {
    const small = [entry(1, 10), entry(2, 10)];
    expect(boundRecall(small)).toEqual({ entries: small, truncated: false });
    const wide = [
      { id: "a", text: "€".repeat(3000) },
      { id: "b", text: "€".repeat(3000) },
    ];
    const r = boundRecall(wide, 16_384);
    expect(r.entries.map((e) => e.id)).toEqual(["a"]);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(16_384);
  });
});

describe("what a session's first call shows", () => {
  it("pinned entries newest first while their text fits 4 KiB; the first that does not fit ends the list", () => {
    const e = (id: string, n: number) => ({ id, text: "a".repeat(n) });
    expect(pinnedToShow([e("3", 2000), e("2", 2000), e("1", 96)]).map((x) => x.id)).toEqual(["3", "2", "1"]);
    expect(pinnedToShow([e("3", 2000), e("2", 2000), e("1", 96), e("0", 1)]).map((x) => x.id)).toEqual(["3", "2", "1"]);
    expect(pinnedToShow([e("3", 2048), e("2", 2048), e("1", 1)]).map((x) => x.id)).toEqual(["3", "2"]);
    // An older, smaller entry that would still fit is not shown past one that did not.
    expect(pinnedToShow([e("3", 4000), e("2", 200), e("1", 1)]).map((x) => x.id)).toEqual(["3"]);
    expect(pinnedToShow([])).toEqual([]);
  });

  it("renders one line per entry, with its topic, and nothing when none", () => {
    expect(memorySystemText([])).toBe("");
    const text = memorySystemText([
      { id: "a", text: "Deploys on\n  Tuesdays" },
      { id: "b", text: "FY starts in April", topic: "finance" },
    ]);
    expect(text.split("\n").slice(1)).toEqual(["- Deploys on Tuesdays", "- [finance] FY starts in April"]);
  });

  it("digests the ids and the exact text", () => {
    expect(shownDigest(["a"], "x")).toBe(shownDigest(["a"], "x"));
    expect(shownDigest(["a"], "x")).not.toBe(shownDigest(["a"], "y"));
    expect(shownDigest(["a"], "x")).not.toBe(shownDigest(["b"], "x"));
  });

  it("the slice folds the recorded memoryShown and ignores other events", () => {
    const meta = { sha256: "f".repeat(64), bytes: 3, mediaType: "text/plain" };
    const shown = { digest: "d".repeat(64), ids: ["mem_1"], text: { $blob: meta } };
    const event = (stateDelta: Record<string, unknown>) => ({ actions: { stateDelta } }) as never;
    expect(foldMemoryShown(undefined, event({ memoryShown: shown }))).toEqual({
      digest: shown.digest,
      ids: ["mem_1"],
      text: meta,
    });
    const slice = { digest: "x", ids: [], text: null };
    expect(foldMemoryShown(slice, event({ toolset: {} }))).toBe(slice);
  });
});

describe("memory tools by SessionOptions.memory", () => {
  it("read-write (the default) has all three; read has recall; off has none", () => {
    expect(memoryToolsFor(undefined)).toEqual(["remember", "recall", "forget"]);
    expect(memoryToolsFor("read-write")).toEqual(["remember", "recall", "forget"]);
    expect(memoryToolsFor("read")).toEqual(["recall"]);
    expect(memoryToolsFor("off")).toEqual([]);
  });
});
